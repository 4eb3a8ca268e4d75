// Loading fixture models through the real plugin modules of this build.
#ifndef ORCD_TESTS_ENGINE_ENGINE_TEST_SUPPORT_H_
#define ORCD_TESTS_ENGINE_ENGINE_TEST_SUPPORT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "golden.h"
#include "host/engine/engine.h"
#include "host/plugins/plugin_registry.h"

namespace orcd::testing {

// The build's plugin directory, loaded once per process.
const PluginRegistry& BuildPlugins();

// models/<model>.gguf on the CPU with the given options (threads default 2,
// context 512 like the goldens).
std::unique_ptr<engine::Engine> LoadFixtureEngine(const std::string& model,
                                                  engine::EngineOptions options = {});

// The arch plugins of this build with the quant plugins' emulated-device
// builds (their CUDA ops run the real kernel code on the SDK's emulator),
// loaded once per process.
const PluginRegistry& EmulatedDevicePlugins();

// models/<model>.gguf on the CUDA backend over an emulated device of
// `capacity_bytes` (context 512 like the goldens).
std::unique_ptr<engine::Engine> LoadEmulatedCudaEngine(const std::string& model,
                                                       uint64_t capacity_bytes = 1ull << 30,
                                                       engine::EngineOptions options = {});

// Teacher-forced logits: `prompt` as one prefill (every row), then one decode
// step per token of `forced`. Returns [prompt + forced][vocab].
std::vector<float> TeacherForcedLogits(engine::Engine& engine, const std::vector<int32_t>& prompt,
                                       const std::vector<int32_t>& forced);

// "" when a and b (TeacherForcedLogits of `golden` on two engines) hold the
// same bits; else where they first part: "logit L of prompt row R (or decode
// step S): <name_a> x, <name_b> y".
std::string FirstBitDifference(const std::vector<float>& a, const std::vector<float>& b,
                               const Golden& golden, const char* name_a, const char* name_b);

// Teacher-forces case c's golden through `engine` and checks the logits
// against it (ExpectMatchesGolden).
void ExpectTeacherForcedMatch(engine::Engine& engine, const GoldenCase& c);

// c.model with its KV cache in q8_0 on the backend `load` gives (called with
// the options to load with): it holds under 54 % of f16's KV bytes (34 bytes
// per 32 values against 64) and teacher-forces c's golden within c's
// tolerance.
void ExpectKvQ8TeacherForcedMatch(
    const std::function<std::unique_ptr<engine::Engine>(engine::EngineOptions)>& load,
    const GoldenCase& c);

}  // namespace orcd::testing

#endif  // ORCD_TESTS_ENGINE_ENGINE_TEST_SUPPORT_H_
