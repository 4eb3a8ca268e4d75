#include "host/plugins/plugin_registry.h"

#include <unistd.h>

#include <algorithm>
#include <boost/dll/shared_library.hpp>
#include <system_error>

#include "host/common/logger.h"
#include "host/gguf/ggml_type_traits.h"
#include "host/plugins/plugin_file_safety.h"
#include "host/plugins/plugin_validation.h"

namespace orcd {

struct PluginRegistry::Library {
  boost::dll::shared_library handle;
};

bool IsHostServedType(uint32_t ggml_type) {
  return ggml_type == ORCD_TYPE_F32 || ggml_type == ORCD_TYPE_F16 || ggml_type == ORCD_TYPE_BF16;
}

PluginRegistry::PluginRegistry(const orcd_host_services* services) : services_(services) {}

// Descriptors point into the libraries: drop every reference before unloading.
PluginRegistry::~PluginRegistry() {
  architectures_.clear();
  quant_types_.clear();
  plugins_.clear();
  libraries_.clear();
}

void PluginRegistry::LoadDirectories(const std::vector<std::filesystem::path>& dirs) {
  for (const std::filesystem::path& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      Logger::Global().Log(LogLevel::kDebug, "plugin_dir_missing", "plugin directory not found",
                           {{"dir", dir.string()}});
      continue;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".so") files.push_back(entry.path());
    }
    if (ec) {
      LogWarn("plugin_dir_unreadable", "cannot list plugin directory: " + ec.message(),
              {{"dir", dir.string()}});
      continue;
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) LoadFile(file);
  }
}

bool PluginRegistry::Refuse(const std::filesystem::path& path, const std::string& reason) {
  LogWarn("plugin_refused", reason, {{"file", path.string()}});
  refused_.push_back({path, reason});
  return false;
}

bool PluginRegistry::LoadFile(const std::filesystem::path& path) {
  // Before dlopen: opening runs the library's constructors.
  if (std::string reason = UnsafePluginFileReason(path, ::geteuid()); !reason.empty()) {
    return Refuse(path, reason);
  }
  auto library = std::make_unique<Library>();
  try {
    // rtld_local keeps each plugin's symbols to itself; rtld_now surfaces
    // unresolved symbols here rather than at first call.
    library->handle.load(boost::dll::fs::path(path),
                         boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now);
  } catch (const std::exception& e) {
    return Refuse(path, std::string("not a loadable shared object: ") + e.what());
  }
  if (!library->handle.has(ORCD_PLUGIN_ENTRY_SYMBOL)) {
    return Refuse(path, std::string("missing entry symbol ") + ORCD_PLUGIN_ENTRY_SYMBOL);
  }
  auto& entry =
      library->handle.get<std::remove_pointer_t<orcd_plugin_entry_fn>>(ORCD_PLUGIN_ENTRY_SYMBOL);
  const orcd_plugin_descriptor* descriptor = entry(services_);
  if (descriptor == nullptr) return Refuse(path, "entry symbol returned no descriptor");
  if (std::string reason = ValidateDescriptor(*descriptor); !reason.empty()) {
    return Refuse(path, reason);
  }
  for (const auto& p : plugins_) {
    if (p->name == descriptor->name) {
      return Refuse(path,
                    "a plugin named '" + p->name + "' is already loaded from " + p->path.string());
    }
  }
  auto plugin = std::make_unique<LoadedPlugin>();
  plugin->name = descriptor->name;
  plugin->version = descriptor->version ? descriptor->version : "";
  plugin->kind = descriptor->kind;
  plugin->path = path;
  plugin->descriptor = descriptor;
  libraries_.push_back(std::move(library));
  Register(std::move(plugin));
  return true;
}

void PluginRegistry::Register(std::unique_ptr<LoadedPlugin> plugin) {
  const LoadedPlugin* p = plugin.get();
  std::string claims;
  auto conflict = [&](const std::string& what, const LoadedPlugin* owner) {
    LogWarn("plugin_conflict",
            what + " is already served by plugin '" + owner->name + "'; first loaded wins",
            {{"file", p->path.string()}, {"winner", owner->path.string()}});
  };
  if (p->kind == ORCD_PLUGIN_ARCHITECTURE) {
    const orcd_arch_plugin* arch = p->descriptor->architecture;
    for (uint32_t k = 0; k < arch->n_architectures; ++k) {
      const std::string name = arch->architectures[k];
      auto [it, inserted] = architectures_.try_emplace(name, Claim<orcd_arch_plugin>{p, arch});
      if (!inserted) {
        conflict("architecture '" + name + "'", it->second.plugin);
      } else {
        claims += (claims.empty() ? "" : ",") + name;
      }
    }
  } else {
    const orcd_quant_plugin* quant = p->descriptor->quant;
    for (uint32_t k = 0; k < quant->n_types; ++k) {
      const orcd_quant_type* t = &quant->types[k];
      const std::string name = GgmlTypeName(t->type);
      if (IsHostServedType(t->type)) {
        LogWarn("plugin_conflict", "type " + name + " is served by the host; claim ignored",
                {{"file", p->path.string()}});
        continue;
      }
      auto [it, inserted] = quant_types_.try_emplace(t->type, Claim<orcd_quant_type>{p, t});
      if (!inserted) {
        conflict("type " + name, it->second.plugin);
      } else {
        claims += (claims.empty() ? "" : ",") + name;
      }
    }
  }
  LogInfo("plugin_loaded", "plugin loaded",
          {{"plugin", p->name},
           {"version", p->version},
           {"file", p->path.string()},
           {"serves", claims}});
  plugins_.push_back(std::move(plugin));
}

Claim<orcd_arch_plugin> PluginRegistry::FindArchitecture(std::string_view architecture) const {
  auto it = architectures_.find(architecture);
  return it == architectures_.end() ? Claim<orcd_arch_plugin>{} : it->second;
}

Claim<orcd_quant_type> PluginRegistry::FindQuantType(uint32_t ggml_type) const {
  auto it = quant_types_.find(ggml_type);
  return it == quant_types_.end() ? Claim<orcd_quant_type>{} : it->second;
}

std::vector<std::string> PluginRegistry::ArchitectureNames() const {
  std::vector<std::string> names;
  for (const auto& [name, claim] : architectures_) names.push_back(name);
  return names;
}

std::vector<std::string> PluginRegistry::QuantTypeNames() const {
  std::vector<std::string> names = {"F32", "F16", "BF16"};
  for (const auto& [type, claim] : quant_types_) names.push_back(GgmlTypeName(type));
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace orcd
