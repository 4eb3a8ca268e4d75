// Where plugins are looked for when the configuration names no directories.
#ifndef ORCD_HOST_PLUGINS_PLUGIN_SEARCH_PATH_H_
#define ORCD_HOST_PLUGINS_PLUGIN_SEARCH_PATH_H_

#include <filesystem>
#include <vector>

namespace orcd {

constexpr const char* kDropInPluginDir = "/etc/orcd/plugins.d";

// <dir of the running executable>/../lib/orcd/plugins (build/lib/orcd/plugins
// in a build tree, /usr/lib/orcd/plugins when packaged), then the drop-in
// directory. Earlier directories win name conflicts.
std::vector<std::filesystem::path> DefaultPluginDirs();

}  // namespace orcd

#endif  // ORCD_HOST_PLUGINS_PLUGIN_SEARCH_PATH_H_
