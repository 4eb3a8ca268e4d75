#include "host/plugins/plugin_file_safety.h"

#include <pwd.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <vector>

namespace orcd {
namespace {

// "uid 1000 (alice)", or "uid 1000" when the user database has no name.
std::string DescribeUser(uid_t uid) {
  std::string text = "uid " + std::to_string(uid);
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    text += std::string(" (") + found->pw_name + ")";
  }
  return text;
}

std::string OctalMode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace

std::string UnsafePathReason(const std::filesystem::path& path, uid_t trusted_uid) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return "cannot check " + path.string() + ": " + std::strerror(errno);
  }
  const char* what = S_ISDIR(st.st_mode) ? "directory " : "";
  if (st.st_uid != 0 && st.st_uid != trusted_uid) {
    return std::string(what) + path.string() + " is owned by " + DescribeUser(st.st_uid) +
           ", not root or the service user " + DescribeUser(trusted_uid) +
           " (another user could replace the code the worker runs)";
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    const char* who = (st.st_mode & S_IWOTH) != 0 ? "world-writable" : "group-writable";
    return std::string(what) + path.string() + " is " + who + " (mode " + OctalMode(st.st_mode) +
           "); fix with: chmod go-w " + path.string();
  }
  return "";
}

std::string UnsafePluginFileReason(const std::filesystem::path& file, uid_t trusted_uid) {
  std::vector<std::filesystem::path> checks = {file};
  const std::filesystem::path listed_in = file.has_parent_path() ? file.parent_path() : ".";
  checks.push_back(listed_in);
  std::error_code ec;
  if (std::filesystem::is_symlink(file, ec)) {
    const std::filesystem::path target = std::filesystem::canonical(file, ec);
    if (!ec && target.parent_path() != std::filesystem::canonical(listed_in, ec)) {
      checks.push_back(target.parent_path());
    }
  }
  for (const std::filesystem::path& path : checks) {
    if (std::string reason = UnsafePathReason(path, trusted_uid); !reason.empty()) return reason;
  }
  return "";
}

}  // namespace orcd
