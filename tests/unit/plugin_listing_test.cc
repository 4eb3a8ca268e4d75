// `orcd-host --list-plugins`: what an operator reads after dropping a plugin
// into a directory. Every plugin with its ABI and what it serves (names an
// earlier plugin holds marked as such), every refused file with the reason,
// exit 0, and no model needed.
#include "host/plugins/plugin_listing.h"

#include <gtest/gtest.h>

#include <fstream>

#include "host/plugins/host_services.h"
#include "tests/unit/test_files.h"

namespace orcd {
namespace {

namespace fs = std::filesystem;
using testing::RunCommand;
using testing::TempDir;

fs::path TestPlugin(const std::string& name) {
  return fs::path(ORCD_TEST_PLUGIN_DIR) / ("orcd-plugin-test_" + name + ".so");
}

const std::string kAbi = std::to_string(ORCD_ABI_MAJOR) + "." + std::to_string(ORCD_ABI_MINOR);

// Two directories as an installed worker has them: the packaged one and a
// drop-in holding a rival, a quant plugin, a world-writable file and junk.
class ListingDirs : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::permissions(packaged_.path(), fs::perms(0755));
    fs::permissions(drop_in_.path(), fs::perms(0755));
    Copy("good_arch_rival", packaged_ / "orcd-plugin-rival.so", 0644);
    Copy("good_arch", drop_in_ / "a-arch.so", 0644);
    Copy("good_quant", drop_in_ / "b-quant.so", 0644);
    Copy("good_quant", drop_in_ / "c-writable.so", 0666);
    { std::ofstream(drop_in_ / "d-junk.so") << "not an ELF file"; }
    fs::permissions(drop_in_ / "d-junk.so", fs::perms(0644));
  }
  static void Copy(const std::string& plugin, const fs::path& to, int mode) {
    fs::copy_file(TestPlugin(plugin), to);
    fs::permissions(to, fs::perms(mode));
  }
  std::vector<fs::path> Dirs() const {
    return {packaged_.path(), drop_in_.path(), drop_in_ / "missing"};
  }

  TempDir packaged_, drop_in_;
};

TEST_F(ListingDirs, NamesEveryPluginItsAbiAndClaimsAndEveryRefusal) {
  PluginRegistry registry(HostServices());
  registry.LoadDirectories(Dirs());
  const std::string text = FormatPluginListing(Dirs(), registry);
  EXPECT_NE(text.find((drop_in_ / "missing").string() + "  (not found)"), std::string::npos);
  EXPECT_NE(text.find("test-arch-rival 1.0  ABI " + kAbi + "  " +
                      (packaged_ / "orcd-plugin-rival.so").string() +
                      "\n    architectures: testarch, rivalarch\n"),
            std::string::npos)
      << text;
  // The packaged directory came first, so it keeps "testarch".
  EXPECT_NE(text.find("architectures: testarch (served by plugin test-arch-rival), testarch2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("test-quant 1.0  ABI " + kAbi), std::string::npos) << text;
  EXPECT_NE(text.find("quant types: Q2_K\n"), std::string::npos) << text;
  // The world-writable copy of test-quant is refused for its mode before it
  // is opened (not as a second test-quant); the junk is no shared object.
  const std::string writable = (drop_in_ / "c-writable.so").string();
  EXPECT_NE(text.find("  " + writable + "\n    " + writable + " is world-writable (mode 0666)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find((drop_in_ / "d-junk.so").string() + "\n    not a loadable shared object"),
            std::string::npos)
      << text;
}

TEST_F(ListingDirs, OrcdHostListsWithoutAModelAndExitsZero) {
  std::string command = std::string(ORCD_BIN_DIR) + "/orcd-host --list-plugins";
  for (const fs::path& dir : Dirs()) command += " --plugin-dir '" + dir.string() + "'";
  const testing::CommandResult r = RunCommand(command + " 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("test-arch-rival 1.0  ABI " + kAbi), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("quant types: Q2_K"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("c-writable.so is world-writable"), std::string::npos) << r.output;

  // The refusals are logged too, as a worker logs them at start-up.
  const testing::CommandResult logged = RunCommand("(" + command + " 2>&1 >/dev/null)");
  EXPECT_NE(logged.output.find("\"plugin_refused\""), std::string::npos) << logged.output;
  EXPECT_NE(logged.output.find("c-writable.so"), std::string::npos) << logged.output;
}

}  // namespace
}  // namespace orcd
