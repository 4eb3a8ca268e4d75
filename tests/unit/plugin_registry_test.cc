// The plugin registry's accept and refuse paths, with real shared objects
// built from tests/test_plugins.
#include "host/plugins/plugin_registry.h"

#include <gtest/gtest.h>

#include <fstream>

#include "host/common/logger.h"
#include "host/plugins/host_services.h"
#include "tests/unit/test_files.h"

namespace orcd {
namespace {

using testing::TempDir;

std::filesystem::path TestPlugin(const std::string& name) {
  return std::filesystem::path(ORCD_TEST_PLUGIN_DIR) / ("orcd-plugin-test_" + name + ".so");
}

// Captures log lines so tests can check what operators would see.
class LogCapture {
 public:
  LogCapture() {
    Logger::Global().SetSink([this](const std::string& line) { lines_.push_back(line); });
  }
  ~LogCapture() { Logger::Global().SetSink({}); }
  bool Contains(const std::string& a, const std::string& b = "") const {
    for (const auto& l : lines_) {
      if (l.find(a) != std::string::npos && l.find(b) != std::string::npos) return true;
    }
    return false;
  }

 private:
  std::vector<std::string> lines_;
};

TEST(PluginRegistry, AcceptsValidArchitectureAndQuantPlugins) {
  PluginRegistry registry(HostServices());
  ASSERT_TRUE(registry.LoadFile(TestPlugin("good_arch")));
  ASSERT_TRUE(registry.LoadFile(TestPlugin("good_quant")));
  EXPECT_TRUE(registry.refused().empty());
  ASSERT_EQ(registry.plugins().size(), 2u);
  EXPECT_EQ(registry.plugins()[0]->name, "test-arch");
  EXPECT_EQ(registry.plugins()[0]->version, "1.0");

  auto arch = registry.FindArchitecture("testarch2");
  ASSERT_NE(arch.plugin, nullptr);
  EXPECT_EQ(arch.plugin->name, "test-arch");
  auto q2k = registry.FindQuantType(ORCD_TYPE_Q2_K);
  ASSERT_NE(q2k.plugin, nullptr);
  EXPECT_EQ(q2k.entry->block_bytes, 84u);
  EXPECT_EQ(registry.FindQuantType(ORCD_TYPE_Q4_K).plugin, nullptr);
  EXPECT_EQ(registry.ArchitectureNames(), (std::vector<std::string>{"testarch", "testarch2"}));
}

struct RefuseCase {
  const char* plugin;
  const char* reason;
};

void PrintTo(const RefuseCase& c, std::ostream* os) { *os << c.plugin; }

class PluginRefusal : public ::testing::TestWithParam<RefuseCase> {};

TEST_P(PluginRefusal, IsRefusedWithReasonAndLogged) {
  LogCapture log;
  PluginRegistry registry(HostServices());
  const auto path = TestPlugin(GetParam().plugin);
  EXPECT_FALSE(registry.LoadFile(path));
  ASSERT_EQ(registry.refused().size(), 1u);
  EXPECT_EQ(registry.refused()[0].path, path);
  EXPECT_NE(registry.refused()[0].reason.find(GetParam().reason), std::string::npos)
      << registry.refused()[0].reason;
  EXPECT_TRUE(registry.plugins().empty());
  EXPECT_TRUE(log.Contains("plugin_refused", path.filename().string()));
}

INSTANTIATE_TEST_SUITE_P(
    Refusals, PluginRefusal,
    ::testing::Values(RefuseCase{"wrong_major", "ABI major 2, this host supports 1"},
                      RefuseCase{"newer_minor", "is newer than this host's"},
                      RefuseCase{"missing_symbol", "missing entry symbol orcd_plugin_v1"},
                      RefuseCase{"null_descriptor", "returned no descriptor"},
                      RefuseCase{"bad_block_size",
                                 "claims Q4_K with blocks of 256 elements / 140 bytes, "
                                 "ggml's are 256 / 144"}),
    [](const auto& info) { return std::string(info.param.plugin); });

// Minors only append: a plugin built against 1.0 loads on this host, and the
// field 1.1 appended reads as absent from its smaller struct.
TEST(PluginRegistry, AcceptsAPluginBuiltAgainstAnOlderMinor) {
  PluginRegistry registry(HostServices());
  ASSERT_TRUE(registry.LoadFile(TestPlugin("abi_1_0_quant")));
  ASSERT_EQ(registry.plugins().size(), 1u);
  const orcd_quant_plugin* quant = registry.plugins()[0]->descriptor->quant;
  ASSERT_NE(quant, nullptr);
  const orcd_quant_cpu_ops* cpu = quant->types[0].cpu;
  EXPECT_TRUE(ORCD_HAS_FIELD(cpu, orcd_quant_cpu_ops, matmul));
  EXPECT_FALSE(ORCD_HAS_FIELD(cpu, orcd_quant_cpu_ops, matvec_q8));
}

TEST(PluginRegistry, RefusesFilesThatAreNotSharedObjects) {
  TempDir dir;
  { std::ofstream(dir / "notes.so") << "this is not an ELF file\n"; }
  PluginRegistry registry(HostServices());
  EXPECT_FALSE(registry.LoadFile(dir / "notes.so"));
  ASSERT_EQ(registry.refused().size(), 1u);
  EXPECT_NE(registry.refused()[0].reason.find("not a loadable shared object"), std::string::npos);
}

TEST(PluginRegistry, DirectoryScanKeepsGoingPastBadPlugins) {
  TempDir dir;
  for (const char* name : {"wrong_major", "good_arch", "missing_symbol", "good_quant"}) {
    std::filesystem::copy_file(TestPlugin(name), dir / TestPlugin(name).filename());
  }
  { std::ofstream(dir / "zz-garbage.so") << "garbage"; }
  { std::ofstream(dir / "README.txt") << "ignored: not a .so"; }
  PluginRegistry registry(HostServices());
  registry.LoadDirectories({dir.path(), dir / "does-not-exist"});
  EXPECT_EQ(registry.plugins().size(), 2u);
  EXPECT_EQ(registry.refused().size(), 3u);
}

// Two plugins claiming one architecture: the first directory wins, the
// conflict is logged, and the loser keeps its other claims.
TEST(PluginRegistry, FirstDirectoryWinsAConflict) {
  TempDir first, second;
  std::filesystem::copy_file(TestPlugin("good_arch_rival"), first / "a.so");
  std::filesystem::copy_file(TestPlugin("good_arch"), second / "a.so");
  LogCapture log;
  PluginRegistry registry(HostServices());
  registry.LoadDirectories({first.path(), second.path()});
  ASSERT_EQ(registry.plugins().size(), 2u);
  EXPECT_EQ(registry.FindArchitecture("testarch").plugin->name, "test-arch-rival");
  EXPECT_EQ(registry.FindArchitecture("rivalarch").plugin->name, "test-arch-rival");
  EXPECT_EQ(registry.FindArchitecture("testarch2").plugin->name, "test-arch");
  EXPECT_TRUE(log.Contains("plugin_conflict", "architecture 'testarch'"));

  // Reversed order, reversed winner: the rule is deterministic.
  PluginRegistry reversed(HostServices());
  reversed.LoadDirectories({second.path(), first.path()});
  EXPECT_EQ(reversed.FindArchitecture("testarch").plugin->name, "test-arch");
}

TEST(PluginRegistry, SamePluginTwiceIsRefusedTheSecondTime) {
  TempDir first, second;
  std::filesystem::copy_file(TestPlugin("good_quant"), first / "q.so");
  std::filesystem::copy_file(TestPlugin("good_quant"), second / "q.so");
  PluginRegistry registry(HostServices());
  registry.LoadDirectories({first.path(), second.path()});
  EXPECT_EQ(registry.plugins().size(), 1u);
  ASSERT_EQ(registry.refused().size(), 1u);
  EXPECT_NE(registry.refused()[0].reason.find("already loaded"), std::string::npos);
}

TEST(PluginRegistry, HostServicesErrorsRoundTrip) {
  const orcd_host_services* host = HostServices();
  EXPECT_EQ(host->abi_major, ORCD_ABI_MAJOR);
  orcd_error* e = host->error_new(ORCD_ERR_MODEL_INVALID, "missing tensor x");
  EXPECT_EQ(host->error_code(e), ORCD_ERR_MODEL_INVALID);
  EXPECT_STREQ(host->error_message(e), "missing tensor x");
  try {
    ThrowIfPluginError(e, "compile");
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kModelInvalid);
    EXPECT_STREQ(err.what(), "compile: missing tensor x");
  }
  void* p = host->host_alloc(100, 64);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  host->host_free(p);
  void* d = reinterpret_cast<void*>(1);
  orcd_error* no_device = host->device_alloc(16, &d);
  EXPECT_EQ(host->error_code(no_device), ORCD_ERR_UNSUPPORTED);
  EXPECT_EQ(d, nullptr);
  host->error_free(no_device);
}

}  // namespace
}  // namespace orcd
