// Who may have written a plugin before the worker runs it.
//
// A plugin is code the worker runs with its own privileges, so a plugin file,
// and the directory it is listed in, must be writable by nobody but root and
// the user the worker runs as; otherwise whoever can write there can run code
// as the service (the rule sshd's StrictModes and sudo apply to their
// configuration). A file or directory that is owned by another user, or is
// world-writable, or group-writable by a group with members other than its
// owner, is refused. (A user private group, whose only member is the owner, is
// what a umask of 002 — Debian's default for ordinary users — gives a build
// tree: its files are writable by the owner alone, as Debian's sshd accepts.)
#ifndef ORCD_HOST_PLUGINS_PLUGIN_FILE_SAFETY_H_
#define ORCD_HOST_PLUGINS_PLUGIN_FILE_SAFETY_H_

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace orcd {

// "" when `path` (symlinks followed) is owned by root or `trusted_uid` and is
// neither group- nor world-writable; otherwise why not, naming the path, its
// owner or mode, and the fix.
std::string UnsafePathReason(const std::filesystem::path& path, uid_t trusted_uid);

// UnsafePathReason for a plugin file, then for the directory it is listed in,
// then, when the file is a symlink, for the directory of the file it points
// to: replacing any of them replaces the code that runs.
std::string UnsafePluginFileReason(const std::filesystem::path& file, uid_t trusted_uid);

}  // namespace orcd

#endif  // ORCD_HOST_PLUGINS_PLUGIN_FILE_SAFETY_H_
