#include "host/plugins/plugin_file_safety.h"

#include <grp.h>
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

// Whether group `gid` has exactly one member, `owner` (a Debian-style user
// private group, what a umask of 002 makes files writable by): then a
// group-writable file is writable by its owner alone. Debian's sshd applies
// the same rule (user-group-modes). Counted over primary and supplementary
// memberships; a group with no members (setgid binaries' groups) or one
// unknown to the group database does not qualify.
bool IsPrivateGroupOf(gid_t gid, uid_t owner) {
  std::vector<char> buffer(16384);
  group entry{};
  group* found = nullptr;
  if (getgrgid_r(gid, &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return false;
  }
  passwd owner_entry{};
  passwd* owner_found = nullptr;
  std::vector<char> owner_buffer(16384);
  if (getpwuid_r(owner, &owner_entry, owner_buffer.data(), owner_buffer.size(), &owner_found) !=
          0 ||
      owner_found == nullptr) {
    return false;
  }
  for (char** member = found->gr_mem; *member != nullptr; ++member) {
    if (std::strcmp(*member, owner_found->pw_name) != 0) return false;
  }
  int primary_members = 0;
  setpwent();  // the host loads plugins on one thread, before serving
  while (passwd* user = getpwent()) {
    if (user->pw_gid != gid) continue;
    if (user->pw_uid != owner) {
      endpwent();
      return false;
    }
    ++primary_members;
  }
  endpwent();
  return primary_members > 0 || found->gr_mem[0] != nullptr;
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
  const bool group_is_owners_alone =
      (st.st_mode & S_IWGRP) != 0 && IsPrivateGroupOf(st.st_gid, st.st_uid);
  if ((st.st_mode & S_IWOTH) != 0 || ((st.st_mode & S_IWGRP) != 0 && !group_is_owners_alone)) {
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
