#include "host/plugins/plugin_search_path.h"

#include <system_error>

namespace orcd {

std::vector<std::filesystem::path> DefaultPluginDirs() {
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back((exe.parent_path() / ".." / "lib" / "orcd" / "plugins").lexically_normal());
  }
  dirs.emplace_back(kDropInPluginDir);
  return dirs;
}

}  // namespace orcd
