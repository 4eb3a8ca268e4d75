// Plugins writable by someone other than root or the service user are
// refused before they are opened, as sshd (StrictModes) and sudo refuse such
// configuration: otherwise anyone who can write a plugin directory runs code
// as the worker. The checks read owner and mode bits, so they hold when the
// tests run as root, who could write anything anyway.
#include "host/plugins/plugin_file_safety.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/plugins/host_services.h"
#include "host/plugins/plugin_registry.h"
#include "tests/unit/test_files.h"

namespace orcd {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

constexpr uid_t kOtherUid = 4242;  // no user here; only root can chown to it

fs::path TestPlugin(const std::string& name) {
  return fs::path(ORCD_TEST_PLUGIN_DIR) / ("orcd-plugin-test_" + name + ".so");
}

// A plugin directory as a package leaves it: 0755, files 0644.
class PluginDir {
 public:
  PluginDir() {
    fs::create_directories(dir());
    fs::permissions(dir(), fs::perms(0755));
  }
  fs::path dir() const { return temp_ / "plugins.d"; }
  fs::path Add(const std::string& plugin, const std::string& file) const {
    fs::copy_file(TestPlugin(plugin), dir() / file);
    fs::permissions(dir() / file, fs::perms(0644));
    return dir() / file;
  }

 private:
  TempDir temp_;
};

std::string OnlyRefusal(const PluginRegistry& registry) {
  EXPECT_EQ(registry.refused().size(), 1u);
  return registry.refused().empty() ? "" : registry.refused()[0].reason;
}

TEST(PluginFileSafety, PackagedModesLoad) {
  PluginDir plugins;
  plugins.Add("good_arch", "arch.so");
  PluginRegistry registry(HostServices());
  registry.LoadDirectories({plugins.dir()});
  EXPECT_EQ(registry.plugins().size(), 1u);
  EXPECT_TRUE(registry.refused().empty());
}

// Group-writable counts as writable by others when the group is not the
// owner's alone; a gid unknown to the group database is such a group. Only
// root may give a file to a group it is not in.
bool GiveToSharedGroup(const fs::path& path) {
  return ::geteuid() == 0 && ::chown(path.c_str(), static_cast<uid_t>(-1), kOtherUid) == 0;
}

// Whether `gid`'s only member is `uid` (primary or supplementary): a user
// private group, as Debian creates one per user.
bool IsUserPrivateGroup(gid_t gid, uid_t uid) {
  const group* g = ::getgrgid(gid);
  const passwd* user = ::getpwuid(uid);
  if (g == nullptr || user == nullptr || user->pw_gid != gid) return false;
  const std::string name = user->pw_name;
  for (char** m = g->gr_mem; *m != nullptr; ++m) {
    if (name != *m) return false;
  }
  ::setpwent();
  bool alone = true;
  while (const passwd* p = ::getpwent()) alone = alone && (p->pw_gid != gid || p->pw_uid == uid);
  ::endpwent();
  return alone;
}

TEST(PluginFileSafety, GroupOrWorldWritableFileIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a file to a shared group needs root";
  for (const auto& [mode, word] : {std::pair{0664, "group-writable"}, {0646, "world-writable"}}) {
    PluginDir plugins;
    const fs::path file = plugins.Add("good_arch", "arch.so");
    ASSERT_TRUE(GiveToSharedGroup(file));
    fs::permissions(file, fs::perms(mode));
    PluginRegistry registry(HostServices());
    registry.LoadDirectories({plugins.dir()});
    EXPECT_TRUE(registry.plugins().empty()) << word;
    const std::string reason = OnlyRefusal(registry);
    EXPECT_NE(reason.find(file.string() + " is " + word), std::string::npos) << reason;
    EXPECT_NE(reason.find("chmod go-w " + file.string()), std::string::npos) << reason;
  }
}

// Whoever can write the directory can swap a safe file for their own, so a
// writable directory refuses everything in it, even /tmp-like sticky ones.
TEST(PluginFileSafety, WritableDirectoryRefusesEveryFileInIt) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a directory to a shared group needs root";
  for (int mode : {0775, 01777}) {
    PluginDir plugins;
    plugins.Add("good_arch", "arch.so");
    plugins.Add("good_quant", "quant.so");
    ASSERT_TRUE(GiveToSharedGroup(plugins.dir()));
    fs::permissions(plugins.dir(), fs::perms(mode));
    PluginRegistry registry(HostServices());
    registry.LoadDirectories({plugins.dir()});
    EXPECT_TRUE(registry.plugins().empty()) << std::oct << mode;
    ASSERT_EQ(registry.refused().size(), 2u);
    for (const RefusedPlugin& r : registry.refused()) {
      EXPECT_NE(r.reason.find("directory " + plugins.dir().string()), std::string::npos)
          << r.reason;
    }
  }
}

// A umask of 002 (Debian's default for ordinary users) leaves a build tree
// group-writable by the user's private group, whose only member is the user:
// writable by the owner alone, so it loads (as Debian's sshd accepts it).
TEST(PluginFileSafety, WritableByTheOwnersPrivateGroupLoads) {
  PluginDir plugins;
  const fs::path file = plugins.Add("good_arch", "arch.so");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  if (!IsUserPrivateGroup(st.st_gid, st.st_uid)) {
    GTEST_SKIP() << "gid " << st.st_gid << " is not a private group of uid " << st.st_uid
                 << " on this machine";
  }
  fs::permissions(file, fs::perms(0664));
  fs::permissions(plugins.dir(), fs::perms(0775));
  PluginRegistry registry(HostServices());
  registry.LoadDirectories({plugins.dir()});
  EXPECT_EQ(registry.plugins().size(), 1u);
  EXPECT_TRUE(registry.refused().empty()) << registry.refused()[0].reason;
}

TEST(PluginFileSafety, SymlinkIntoAWritableDirectoryIsRefused) {
  PluginDir plugins;
  TempDir elsewhere;
  const fs::path target = elsewhere / "arch.so";
  fs::copy_file(TestPlugin("good_arch"), target);
  fs::permissions(target, fs::perms(0644));
  fs::permissions(elsewhere.path(), fs::perms(0777));
  fs::create_symlink(target, plugins.dir() / "arch.so");
  PluginRegistry registry(HostServices());
  registry.LoadDirectories({plugins.dir()});
  EXPECT_TRUE(registry.plugins().empty());
  EXPECT_NE(OnlyRefusal(registry).find("directory " + elsewhere.path().string() + " is world"),
            std::string::npos);
}

TEST(PluginFileSafety, FileOrDirectoryOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root";
  for (bool chown_dir : {false, true}) {
    PluginDir plugins;
    const fs::path file = plugins.Add("good_arch", "arch.so");
    const fs::path owned = chown_dir ? plugins.dir() : file;
    ASSERT_EQ(::chown(owned.c_str(), kOtherUid, kOtherUid), 0);
    PluginRegistry registry(HostServices());
    registry.LoadDirectories({plugins.dir()});
    EXPECT_TRUE(registry.plugins().empty());
    const std::string reason = OnlyRefusal(registry);
    EXPECT_NE(reason.find(owned.string() + " is owned by uid 4242"), std::string::npos) << reason;
  }
}

// The service user (the one running the host) may own its plugins; root
// always may. Checked with the service user given explicitly, so the test
// needs no second account.
TEST(PluginFileSafety, RootOrTheServiceUserMayOwnAPlugin) {
  PluginDir plugins;
  const fs::path file = plugins.Add("good_arch", "arch.so");
  uid_t owner = ::geteuid();
  if (owner == 0) {
    ASSERT_EQ(::chown(file.c_str(), kOtherUid, kOtherUid), 0);
    owner = kOtherUid;
  }
  EXPECT_EQ(UnsafePathReason(file, owner), "");
  EXPECT_NE(UnsafePathReason(file, owner + 1), "");  // neither root nor the service user
  EXPECT_NE(UnsafePathReason(plugins.dir() / "missing.so", owner).find("cannot check"),
            std::string::npos);
}

}  // namespace
}  // namespace orcd
