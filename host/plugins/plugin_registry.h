// Finds, loads and checks plugins, and answers "who serves this?".
//
// Directories are scanned in the order given; inside one directory files are
// taken in byte order of their names. The first plugin to claim a name (an
// architecture or a ggml type) keeps it; later claims are logged and ignored.
// A file that fails any check is refused with a log line naming the file and
// the reason, and scanning goes on. The first check is who could have written
// it: a file, or the directory it is listed in, that is owned by another user
// than root or the one running the host, or is group- or world-writable, is
// refused before it is opened (plugin_file_safety.h).
#ifndef ORCD_HOST_PLUGINS_PLUGIN_REGISTRY_H_
#define ORCD_HOST_PLUGINS_PLUGIN_REGISTRY_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "orcd/plugin.h"

namespace orcd {

struct LoadedPlugin {
  std::string name;
  std::string version;
  orcd_plugin_kind kind = ORCD_PLUGIN_QUANT;
  std::filesystem::path path;
  const orcd_plugin_descriptor* descriptor = nullptr;
};

struct RefusedPlugin {
  std::filesystem::path path;
  std::string reason;
};

// One name claimed by a plugin, e.g. architecture "qwen2" or type "Q4_K".
template <typename T>
struct Claim {
  const LoadedPlugin* plugin = nullptr;
  const T* entry = nullptr;
};

class PluginRegistry {
 public:
  explicit PluginRegistry(const orcd_host_services* services);
  ~PluginRegistry();
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Scans each directory for *.so files. Missing directories are skipped
  // (logged at debug level).
  void LoadDirectories(const std::vector<std::filesystem::path>& dirs);
  // Loads one file; returns false (and records why) when it is refused.
  // The file and its directory must pass UnsafePluginFileReason for the
  // user running the host.
  bool LoadFile(const std::filesystem::path& path);

  const std::vector<std::unique_ptr<LoadedPlugin>>& plugins() const { return plugins_; }
  const std::vector<RefusedPlugin>& refused() const { return refused_; }

  // nullptr-plugin claims when nobody serves the name.
  Claim<orcd_arch_plugin> FindArchitecture(std::string_view architecture) const;
  Claim<orcd_quant_type> FindQuantType(uint32_t ggml_type) const;

  // Sorted names, for "available: ..." messages.
  std::vector<std::string> ArchitectureNames() const;
  std::vector<std::string> QuantTypeNames() const;

 private:
  struct Library;
  bool Refuse(const std::filesystem::path& path, const std::string& reason);
  void Register(std::unique_ptr<LoadedPlugin> plugin);

  const orcd_host_services* services_;
  std::vector<std::unique_ptr<Library>> libraries_;  // kept loaded until destruction
  std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
  std::vector<RefusedPlugin> refused_;
  std::map<std::string, Claim<orcd_arch_plugin>, std::less<>> architectures_;
  std::map<uint32_t, Claim<orcd_quant_type>> quant_types_;
};

// True for the types the host itself serves (F32, F16, BF16).
bool IsHostServedType(uint32_t ggml_type);

}  // namespace orcd

#endif  // ORCD_HOST_PLUGINS_PLUGIN_REGISTRY_H_
