#include "engine_test_support.h"

#include "golden.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include "host/plugins/host_services.h"

namespace orcd::testing {
namespace {

// $ORCD_PLUGIN_DIR overrides the build's plugin directory (the GPU kit).
std::filesystem::path PluginDir() {
  const char* env = std::getenv("ORCD_PLUGIN_DIR");
  return env && *env ? env : ORCD_PLUGIN_DIR;
}

}  // namespace

const PluginRegistry& BuildPlugins() {
  static PluginRegistry* registry = [] {
    auto* r = new PluginRegistry(HostServices());
    r->LoadDirectories({PluginDir()});
    return r;
  }();
  return *registry;
}

std::unique_ptr<engine::Engine> LoadFixtureEngine(const std::string& model,
                                                  engine::EngineOptions options) {
  if (options.threads == 0) options.threads = 2;
  if (options.context_length == 0) options.context_length = 512;
  return engine::Engine::Load(FixtureModel(model), BuildPlugins(), options);
}

const PluginRegistry& EmulatedDevicePlugins() {
  static PluginRegistry* registry = [] {
    auto* r = new PluginRegistry(HostServices());
    // First claim wins: the emulated quant plugins before the build's own.
    r->LoadDirectories({ORCD_EMULATED_PLUGIN_DIR, PluginDir()});
    return r;
  }();
  return *registry;
}

std::unique_ptr<engine::Engine> LoadEmulatedCudaEngine(const std::string& model,
                                                       uint64_t capacity_bytes,
                                                       engine::EngineOptions options) {
  options.device = "cuda";
  if (!options.device_runtime)
    options.device_runtime = engine::cuda::CreateEmulatedRuntime(capacity_bytes);
  if (options.context_length == 0) options.context_length = 512;
  return engine::Engine::Load(FixtureModel(model), EmulatedDevicePlugins(), options);
}

std::vector<float> TeacherForcedLogits(engine::Engine& engine, const std::vector<int32_t>& prompt,
                                       const std::vector<int32_t>& forced) {
  std::span<const float> rows = engine.Prefill(prompt, engine::LogitRows::kAll);
  std::vector<float> out(rows.begin(), rows.end());
  for (int32_t token : forced) {
    std::span<const float> row = engine.Decode(token);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

void ExpectTeacherForcedMatch(engine::Engine& engine, const GoldenCase& c) {
  const Golden golden = LoadGolden(c.golden);
  ASSERT_EQ(engine.info().vocab, golden.vocab);
  std::printf("device: %s\n", engine.info().device.c_str());
  const std::vector<float> ours = TeacherForcedLogits(engine, golden.prompt, golden.greedy);
  ExpectMatchesGolden(ours, golden, c.tolerance);
}

std::string FirstBitDifference(const std::vector<float>& a, const std::vector<float>& b,
                               const Golden& golden, const char* name_a, const char* name_b) {
  if (a.size() != b.size()) return "different sizes";
  const size_t prompt_floats = golden.prompt.size() * static_cast<size_t>(golden.vocab);
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(float)) == 0) continue;
    const bool prompt = i < prompt_floats;
    return "logit " + std::to_string(i % golden.vocab) +
           (prompt ? " of prompt row " : " of decode step ") +
           std::to_string((prompt ? i : i - prompt_floats) / golden.vocab) + ": " + name_a + " " +
           std::to_string(a[i]) + ", " + name_b + " " + std::to_string(b[i]);
  }
  return "";
}

void ExpectKvQ8TeacherForcedMatch(
    const std::function<std::unique_ptr<engine::Engine>(engine::EngineOptions)>& load,
    const GoldenCase& c) {
  engine::EngineOptions options;
  options.kv_type = engine::KvType::kQ8_0;
  const std::unique_ptr<engine::Engine> engine = load(options);
  EXPECT_LT(engine->info().kv_bytes, load({})->info().kv_bytes * 54 / 100)
      << "q8_0 holds 34 bytes per 32 values, f16 64";
  ExpectTeacherForcedMatch(*engine, c);
}

}  // namespace orcd::testing
