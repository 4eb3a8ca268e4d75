#include "host/plugins/plugin_listing.h"

#include <cstdio>
#include <system_error>

#include "host/common/logger.h"
#include "host/gguf/ggml_type_traits.h"
#include "host/plugins/host_services.h"

namespace orcd {
namespace {

// "name", or "name (served by <holder>)" when an earlier plugin holds it.
std::string ClaimText(const std::string& name, const LoadedPlugin* holder,
                      const LoadedPlugin& self) {
  if (holder == &self) return name;
  return name + " (served by " + (holder != nullptr ? "plugin " + holder->name : "the host") + ")";
}

std::string ServedText(const PluginRegistry& registry, const LoadedPlugin& p) {
  std::string list;
  auto add = [&list](const std::string& item) { list += (list.empty() ? "" : ", ") + item; };
  if (p.kind == ORCD_PLUGIN_ARCHITECTURE) {
    const orcd_arch_plugin* arch = p.descriptor->architecture;
    for (uint32_t k = 0; k < arch->n_architectures; ++k) {
      const std::string name = arch->architectures[k];
      add(ClaimText(name, registry.FindArchitecture(name).plugin, p));
    }
    return "architectures: " + list;
  }
  const orcd_quant_plugin* quant = p.descriptor->quant;
  for (uint32_t k = 0; k < quant->n_types; ++k) {
    const uint32_t type = quant->types[k].type;
    add(ClaimText(GgmlTypeName(type), registry.FindQuantType(type).plugin, p));
  }
  return "quant types: " + list;
}

}  // namespace

std::string FormatPluginListing(const std::vector<std::filesystem::path>& dirs,
                                const PluginRegistry& registry) {
  std::string out = "plugin directories (search order; the first to claim a name keeps it):\n";
  for (const std::filesystem::path& dir : dirs) {
    std::error_code ec;
    out += "  " + dir.string() + (std::filesystem::is_directory(dir, ec) ? "" : "  (not found)") +
           "\n";
  }
  out += "plugins (host ABI " + std::to_string(ORCD_ABI_MAJOR) + "." +
         std::to_string(ORCD_ABI_MINOR) + "):\n";
  if (registry.plugins().empty()) out += "  (none)\n";
  for (const auto& p : registry.plugins()) {
    out += "  " + p->name + " " + p->version + "  ABI " + std::to_string(p->descriptor->abi_major) +
           "." + std::to_string(p->descriptor->abi_minor) + "  " + p->path.string() + "\n";
    out += "    " + ServedText(registry, *p) + "\n";
  }
  out += "refused:\n";
  if (registry.refused().empty()) out += "  (none)\n";
  for (const RefusedPlugin& r : registry.refused()) {
    out += "  " + r.path.string() + "\n    " + r.reason + "\n";
  }
  return out;
}

int PrintPluginListing(const std::vector<std::filesystem::path>& dirs) {
  // The listing reports every load; only refusals also go to the log.
  Logger::Global().SetLevel(LogLevel::kWarn);
  PluginRegistry registry(HostServices());
  registry.LoadDirectories(dirs);
  const std::string listing = FormatPluginListing(dirs, registry);
  std::fwrite(listing.data(), 1, listing.size(), stdout);
  return 0;
}

}  // namespace orcd
