// The CUDA backend end to end on the emulated device: every fixture family and
// the real trained stories260K, teacher-forced against the llama.cpp goldens
// with the CPU tests' tolerances (golden_check.cc). The adapters, the device
// state (weights uploaded in chunks, KV cache, arena, step values), the
// backend's kernels and the quant plugins' CUDA kernels all run; the kernels
// execute thread by thread on the SDK's CUDA emulator.
//
// What this cannot check (left to tests/gpu and scripts/gpu-bundle.sh on a
// real GPU): nvcc's code generation, the memory model (fibers interleave only
// at barriers), the real runtime's copies and stream ordering, and speed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "engine_test_support.h"
#include "golden.h"
#include "host/common/status.h"
#include "host/engine/executor.h"
#include "host/engine/lowered_ops.h"
#include "host/sampling/sampler.h"
#include "host/tokenizer/tokenizer_factory.h"

namespace orcd::testing {
namespace {

class CudaEmulatedGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CudaEmulatedGolden, TeacherForcedRowsMatch) {
  const GoldenCase c = GetParam();
  auto engine = LoadEmulatedCudaEngine(c.model);
  EXPECT_EQ(engine->info().device, "cuda: emulated CUDA device");
  ExpectTeacherForcedMatch(*engine, c);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, CudaEmulatedGolden,
    ::testing::Values(
        GoldenCase{"qwen2-tiny.Q4_K_M", "qwen2-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"qwen2-tiny.F16", "qwen2-tiny.F16", Tolerance::kF16},
        GoldenCase{"phi3-tiny.Q4_K_M", "phi3-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"gpt2-tiny.Q8_0", "gpt2-tiny.Q8_0", Tolerance::kQuantized},
        GoldenCase{"gptoss-tiny.MXFP4_MOE", "gptoss-tiny.MXFP4_MOE", Tolerance::kQuantizedMoe},
        GoldenCase{"gptoss-tiny.F16.long", "gptoss-tiny.F16", Tolerance::kF16},
        GoldenCase{"llama3-tiny.Q4_K_M", "llama3-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"qwen3-tiny.Q4_K_M", "qwen3-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"qwen3moe-tiny.Q4_K_M", "qwen3moe-tiny.Q4_K_M", Tolerance::kQuantizedMoe},
        GoldenCase{"qwen3moe-tiny.F16", "qwen3moe-tiny.F16", Tolerance::kF16},
        GoldenCase{"gemma2-tiny.Q4_K_M", "gemma2-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"gemma2-tiny.F16", "gemma2-tiny.F16", Tolerance::kF16},
        GoldenCase{"gemma3-tiny.Q4_K_M", "gemma3-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"gemma3-tiny.F16", "gemma3-tiny.F16", Tolerance::kF16},
        GoldenCase{"real/stories260K", "real/stories260K", Tolerance::kF16}),
    GoldenCaseName);

// limits.kv_type q8_0 on the CUDA backend: the attention kernels read ggml's
// block_q8_0 rows and round the step's own keys and values as they store
// them (quantize_row_q8_0_ref, as the CPU does): against the goldens (an f16
// KV) within the CPU's q8_0 bound (kKvQ8, kv_q8_test.cc), F16 weights so that
// the KV's rounding is the new error (cuda_emulated_vs_cpu_test.cc compares
// the rounding itself with the CPU's). Not gptoss-tiny.F16: its router sits
// near ties on a few rows, and the CUDA backend's f16 GEMM operands together
// with the 8-bit KV flip experts there (the median 1.9e-2, one row 0.45); its
// q8_0 KV is checked against the CPU's on the MXFP4 file instead, to 1e-5.
class CudaKvQ8 : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CudaKvQ8, TeacherForcedRowsStayWithinTheQuantizedTolerance) {
  const GoldenCase c = GetParam();
  ExpectKvQ8TeacherForcedMatch(
      [&](engine::EngineOptions o) { return LoadEmulatedCudaEngine(c.model, 1ull << 30, o); }, c);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, CudaKvQ8,
    ::testing::Values(GoldenCase{"qwen2-tiny.F16", "qwen2-tiny.F16", Tolerance::kKvQ8},
                      GoldenCase{"gemma2-tiny.F16", "gemma2-tiny.F16", Tolerance::kKvQ8},
                      GoldenCase{"qwen3moe-tiny.F16", "qwen3moe-tiny.F16", Tolerance::kKvQ8},
                      GoldenCase{"llama3-tiny.F16", "llama3-tiny.F16", Tolerance::kKvQ8}),
    GoldenCaseName);

// Greedy decoding continues each family's F16 prompt as llama.cpp did (its 16
// greedy tokens), on the emulated device and on the CPU: qwen3's q/k norms,
// qwen3moe's renormalised experts, Gemma's scaled embeddings, soft-caps,
// GEGLU, sandwich norms and local/global layers all feed the argmax.
class FamilyGreedy : public ::testing::TestWithParam<const char*> {};

TEST_P(FamilyGreedy, ContinuationMatchesLlamaCpp) {
  const Golden golden = LoadGolden(GetParam());
  for (bool cuda : {true, false}) {
    auto engine = cuda ? LoadEmulatedCudaEngine(GetParam()) : LoadFixtureEngine(GetParam());
    std::vector<int32_t> tokens = {engine->PrefillGreedy(golden.prompt)};
    while (tokens.size() < golden.greedy.size())
      tokens.push_back(engine->DecodeGreedy(tokens.back()));
    EXPECT_EQ(tokens, golden.greedy) << (cuda ? "cuda (emulated)" : "cpu");
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FamilyGreedy,
                         ::testing::Values("llama3-tiny.F16", "qwen3-tiny.F16", "qwen3moe-tiny.F16",
                                           "gemma2-tiny.F16", "gemma3-tiny.F16"),
                         ModelParamName);

// M0-W-1800, the spec's haiku test, on the emulated device (the server's run
// on the CPU backend is tests/integration/haiku_test.cc): "Write a haiku
// about GPU computing", up to 50 tokens sampled on the device at temperature
// 0.7 with seed 42, twice on fresh engines: the same tokens (M0-W-1040).
TEST(CudaEmulatedDevice, M0_W_1800_HaikuIsReproducible) {
  const auto tokenizer = LoadTokenizer(FixtureModel("real/stories260K"));
  const std::vector<int32_t> prompt =
      tokenizer->Encode("Write a haiku about GPU computing", true, true);
  const auto haiku = [&] {
    auto e = LoadEmulatedCudaEngine("real/stories260K");
    EXPECT_TRUE(e->samples_on_device());
    Sampler sampler(SamplerConfig{0.7, 1.0, 0, 1.0, 0.0, 42});
    std::vector<int32_t> out;
    int32_t t = e->PrefillSample(prompt, engine::SampleRequest::From(sampler.NextDraw()));
    while (true) {
      out.push_back(t);
      sampler.Record(t);
      if (t == tokenizer->special_ids().eos || out.size() == 50) break;
      t = e->DecodeSample(t, engine::SampleRequest::From(sampler.NextDraw()));
    }
    return out;
  };
  const std::vector<int32_t> first = haiku();
  EXPECT_GE(first.size(), 5u) << "a haiku of almost nothing";
  EXPECT_EQ(first, haiku()) << "same seed, same device, different tokens";
}

// The VRAM-only policy's start-up check: a device too small for the model
// refuses the load naming required and available bytes, and holds nothing.
TEST(CudaEmulatedDevice, TooLittleMemoryIsInsufficientVramAndAllocatesNothing) {
  auto runtime = engine::cuda::CreateEmulatedRuntime(1 << 20);  // 1 MiB: the model is 1.7 MB
  engine::EngineOptions options;
  options.device = "cuda";
  options.device_runtime = runtime;
  options.context_length = 512;
  try {
    engine::Engine::Load(FixtureModel("qwen2-tiny.Q4_K_M"), EmulatedDevicePlugins(), options);
    FAIL() << "loaded on a 1 MiB device";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOutOfMemory);
    EXPECT_NE(std::string(e.what()).find("INSUFFICIENT_VRAM"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1048576 are free"), std::string::npos) << e.what();
  }
  EXPECT_EQ(runtime->MemoryInfo().free_bytes, uint64_t{1} << 20);
}

// The headroom kept free for what the runtime allocates on its own (cuBLAS,
// lazily loaded kernels, graphs) counts against the device: a model that fits
// 64 MiB alone is refused when 64 MiB more must stay free, naming them.
TEST(CudaEmulatedDevice, HeadroomIsKeptFreeAtLoad) {
  auto runtime = engine::cuda::CreateEmulatedRuntime(64ull << 20);
  engine::EngineOptions options;
  options.device = "cuda";
  options.device_runtime = runtime;
  options.context_length = 512;
  options.vram_headroom_bytes = int64_t{64} << 20;
  try {
    engine::Engine::Load(FixtureModel("qwen2-tiny.Q4_K_M"), EmulatedDevicePlugins(), options);
    FAIL() << "loaded without leaving the headroom free";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOutOfMemory);
    EXPECT_NE(std::string(e.what()).find("67108864 are kept free"), std::string::npos) << e.what();
  }
  options.vram_headroom_bytes = 1 << 20;
  EXPECT_NO_THROW(
      engine::Engine::Load(FixtureModel("qwen2-tiny.Q4_K_M"), EmulatedDevicePlugins(), options));
}

// A device allocation that fails while serving (here: room for every prompt
// row's logits) fails that request with kOutOfMemory, which the server sends
// as VRAM_OOM; the engine keeps its state and the next request runs.
TEST(CudaEmulatedDevice, OutOfMemoryMidRequestLeavesTheEngineServing) {
  const Golden golden = LoadGolden("qwen2-tiny.Q4_K_M");
  uint64_t needed = 0;
  std::vector<float> expected;
  {
    auto probe = LoadEmulatedCudaEngine("qwen2-tiny.Q4_K_M");
    needed = probe->cuda_backend()->usage().total();
    const auto last = probe->Prefill(golden.prompt);
    expected.assign(last.begin(), last.end());
  }
  engine::EngineOptions options;
  options.device_runtime = engine::cuda::CreateEmulatedRuntime(needed + 64 * 1024);
  auto engine = LoadEmulatedCudaEngine("qwen2-tiny.Q4_K_M", 0, options);
  try {
    engine->Prefill(golden.prompt, engine::LogitRows::kAll);  // 30 rows x 4099: 480 KiB more
    FAIL() << "all logits fit in 64 KiB";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kOutOfMemory) << e.what();
  }
  EXPECT_EQ(engine->position(), 0);
  const auto last = engine->Prefill(golden.prompt);
  ASSERT_EQ(last.size(), expected.size());
  for (size_t i = 0; i < last.size(); ++i) ASSERT_EQ(last[i], expected[i]) << "logit " << i;
}

// A stop (cancel, deadline) during a long prefill pass on the device lands
// inside the pass: the executor paces the pass per layer and asks the check
// at each layer, not only between passes (a 512-token pass of a 20B MoE is
// long); the run ends with kStopped and the engine serves the next prompt
// with the same bits.
TEST(CudaEmulatedDevice, StopLandsInsideALongPrefillPass) {
  auto engine = LoadEmulatedCudaEngine("qwen2-tiny.Q4_K_M");
  std::vector<int32_t> prompt(engine::Executor::kPacedStopTokens + 36);
  for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int32_t>(1 + i * 7 % 200);
  const auto first = engine->Prefill(prompt);
  const std::vector<float> expected(first.begin(), first.end());
  int layers = 0;
  for (const auto& insn : engine->bound_plan().phase(engine::Phase::kPrefill).instructions)
    layers += engine::IsAttention(insn.opcode) ? 1 : 0;
  ASSERT_GT(layers, 1);

  int asked = 0;
  engine->set_should_stop([&] {
    ++asked;
    return false;
  });
  engine->Reset();
  engine->Prefill(prompt);  // one pass
  EXPECT_GE(asked, layers) << "a device pass asks the check only before it starts";

  asked = 0;
  engine->set_should_stop([&] { return ++asked > 1; });  // stop at the first layer's check
  engine->Reset();
  try {
    engine->Prefill(prompt);
    FAIL() << "the pass ran to its end after a stop";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kStopped) << e.what();
  }
  EXPECT_EQ(asked, 2) << "the stop was seen late";
  engine->set_should_stop({});
  engine->Reset();
  const auto after = engine->Prefill(prompt);
  ASSERT_EQ(after.size(), expected.size());
  EXPECT_EQ(std::memcmp(after.data(), expected.data(), expected.size() * sizeof(float)), 0)
      << "a stopped pass changed the next prompt's logits";
}

// Weights, KV cache and scratch are device memory, accounted and reported.
TEST(CudaEmulatedDevice, ModelLivesInDeviceMemoryAndIsAccounted) {
  auto runtime = engine::cuda::CreateEmulatedRuntime(64ull << 20);
  engine::EngineOptions options;
  options.device_runtime = runtime;
  std::vector<int> progress;
  options.load_progress = [&](int p) { progress.push_back(p); };
  options.weight_chunk_bytes = 64 * 1024;  // many chunks: the staging pair is exercised
  auto engine = LoadEmulatedCudaEngine("qwen2-tiny.Q4_K_M", 0, options);
  engine::cuda::CudaBackend* b = engine->cuda_backend();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(progress, (std::vector<int>{0, 25, 50, 75, 100}));
  const auto& u = b->usage();
  EXPECT_GE(u.weights, engine->info().weight_bytes);
  // M0-W-1201: the file's quantized bytes as they are, no dequantized copy
  // (a Q4_K_M model in f32 would need ~7x).
  EXPECT_LE(u.weights, engine->info().weight_bytes + 4096);
  EXPECT_EQ(u.kv_cache, engine->info().kv_bytes);
  EXPECT_GT(u.scratch, 0u);
  EXPECT_EQ(engine->info().vram_bytes, u.total());
  EXPECT_EQ(runtime->MemoryInfo().free_bytes, (64ull << 20) - u.total());
  EXPECT_TRUE(b->WeightsResident());
  engine.reset();
  EXPECT_EQ(runtime->MemoryInfo().free_bytes, 64ull << 20) << "device memory leaked at unload";
}

// The tensor-core prefill's chunk is dequantized straight to f16 when every
// weight's plugin serves get_rows_f16 (ABI 1.8, the in-tree quant plugins):
// no f32 chunk is held (for a real model 64 MiB of VRAM), and the prompt's
// logits are the ones of a prefill with the f16 path off, within the f16
// rounding of activations and weights (the GEMM's operands).
TEST(CudaEmulatedDevice, TheF16PrefillHoldsNoF32ChunkWhenPluginsDequantizeToF16) {
  auto engine = LoadEmulatedCudaEngine("qwen2-tiny.Q4_K_M");
  const engine::cuda::PrefillScratch& s = engine->cuda_backend()->prefill_scratch();
  ASSERT_GT(s.elements, 0) << "the prefill takes tensor cores";
  EXPECT_NE(s.f16, nullptr);
  EXPECT_NE(s.row_ids, nullptr);
  EXPECT_EQ(s.f32, nullptr) << "every weight serves get_rows_f16: no f32 chunk";
  engine::EngineOptions off;
  off.cuda_f16_prefill = false;
  auto reference = LoadEmulatedCudaEngine("qwen2-tiny.Q4_K_M", 1ull << 30, off);
  EXPECT_EQ(reference->cuda_backend()->prefill_scratch().elements, 0);
  std::vector<int32_t> prompt;
  for (int i = 0; i < 24; ++i) prompt.push_back(100 + 7 * i);  // past kTensorCorePrefillTokens
  const std::span<const float> logits = engine->Prefill(prompt);
  const std::vector<float> got(logits.begin(), logits.end());
  const std::span<const float> want = reference->Prefill(prompt);
  ASSERT_EQ(got.size(), want.size());
  float worst = 0, scale = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    worst = std::max(worst, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  // f16 keeps 11 significant bits: a few units of 2^-11 of the logits' range.
  EXPECT_LT(worst, 8 * scale / 2048) << "worst " << worst << " of " << scale;
  EXPECT_GT(worst, 0.0f) << "the same bits: the prompt did not take the f16 path";
}

}  // namespace
}  // namespace orcd::testing

namespace orcd::testing {
namespace {

// Greedy decoding with the logits left on the device (only ids read back)
// writes llama.cpp's story: stories260K's 48 greedy tokens, on the emulated
// CUDA device and on the CPU.
TEST(GreedyOnDevice, StoriesContinuationMatchesLlamaCpp) {
  const Golden golden = LoadGolden("real/stories260K");
  for (bool cuda : {true, false}) {
    auto engine =
        cuda ? LoadEmulatedCudaEngine("real/stories260K") : LoadFixtureEngine("real/stories260K");
    std::vector<int32_t> tokens = {engine->PrefillGreedy(golden.prompt)};
    while (tokens.size() < golden.greedy.size())
      tokens.push_back(engine->DecodeGreedy(tokens.back()));
    EXPECT_EQ(tokens, golden.greedy) << (cuda ? "cuda (emulated)" : "cpu");
  }
}

// A prompt longer than one prefill pass: the argmax comes from the last pass.
TEST(GreedyOnDevice, PromptOverSeveralPassesEqualsTheLogitsArgmax) {
  const Golden golden = LoadGolden("qwen2-tiny.Q4_K_M");
  engine::EngineOptions options;
  options.max_batch = 7;
  auto engine = LoadEmulatedCudaEngine("qwen2-tiny.Q4_K_M", 1ull << 30, options);
  const int32_t greedy = engine->PrefillGreedy(golden.prompt);
  engine->Reset();
  EXPECT_EQ(greedy, Argmax(engine->Prefill(golden.prompt)));
  EXPECT_EQ(engine->position(), static_cast<int64_t>(golden.prompt.size()));
}

}  // namespace
}  // namespace orcd::testing
