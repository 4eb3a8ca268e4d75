// Routes a model to the plugins that serve it: general.architecture to an
// architecture plugin, every tensor's ggml type to a quant plugin (or the host).
#ifndef ORCD_HOST_PLUGINS_MODEL_ROUTER_H_
#define ORCD_HOST_PLUGINS_MODEL_ROUTER_H_

#include <cstdint>
#include <map>
#include <string>

#include "host/gguf/gguf_file.h"
#include "host/plugins/plugin_registry.h"

namespace orcd {

struct ModelRoute {
  std::string architecture;
  Claim<orcd_arch_plugin> arch;
  // Every non-host type the file uses, with the plugin serving it.
  std::map<uint32_t, Claim<orcd_quant_type>> quant;
  // Tensor count per ggml type (host-served types included).
  std::map<uint32_t, uint64_t> type_mix;
};

// Throws orcd::Error: kModelInvalid when general.architecture is missing,
// kUnsupported naming what no plugin serves and listing what is available.
ModelRoute RouteModel(const PluginRegistry& registry, const GgufFile& file);

// Same, but records problems instead of throwing (for orcd-inspect).
ModelRoute DescribeRoute(const PluginRegistry& registry, const GgufFile& file,
                         std::vector<std::string>* problems);

}  // namespace orcd

#endif  // ORCD_HOST_PLUGINS_MODEL_ROUTER_H_
