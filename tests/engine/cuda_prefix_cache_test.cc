// Prefix caching on the CUDA backend (the emulated device in CI; built into
// the GPU tests too): a prompt whose leading blocks were evaluated before maps
// them and gives bit for bit the logits and tokens of a cold run. This holds
// because a prompt row's arithmetic does not depend on the chunk it is
// evaluated in (every prompt chunk takes the tensor-core path, MoE pairs are
// grouped by expert however few; attention reads its own keys rounded like
// the cache): the chunked cold run must equal the one-step cold run first.
// Exact equality, no tolerance. On a GPU this also needs cuBLAS to give a
// column the same bits whatever the number of columns: the GPU kit reports it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_engine_under_test.h"
#include "golden.h"
#include "host/engine/engine.h"
#include "prefix_runs.h"

namespace orcd::testing {
namespace {

engine::EngineOptions Options() {
  engine::EngineOptions o;
  o.max_sequences = 2;
  o.context_length = 128;
  o.kv_block_tokens = 16;
  return o;
}

class CudaPrefixCache : public ::testing::TestWithParam<const char*> {};

TEST_P(CudaPrefixCache, AHitGivesTheColdBitsWhateverTheChunks) {
  ORCD_SKIP_WITHOUT_CUDA();
  auto e = LoadCudaEngine(GetParam(), Options());
  ASSERT_TRUE(e->kv_pool().prefix_cache);
  const std::vector<int32_t> prompt = CyclicPrompt(70, 1, e->info().vocab);
  const PrefixRun cold = RunPrompt(*e, prompt, 6, false);
  // Chunks of 20, 20, 20 and 10 tokens: the last one smaller than the
  // tensor-core path once needed (kTensorCorePrefillTokens).
  ExpectSameBits(cold, RunPrompt(*e, prompt, 6, false, 0, 20),
                 std::string(GetParam()) + ", the prompt in chunks");
  // Another prompt in between: the sequence's rings hold its windows, not
  // the cached prompt's (sliding-window layers get theirs from the copy).
  RunPrompt(*e, CyclicPrompt(50, 2, e->info().vocab), 1, false);
  const PrefixRun warm = RunPrompt(*e, prompt, 6, true);
  EXPECT_EQ(warm.matched, 64) << "the prompt's four full blocks (its last token is evaluated)";
  EXPECT_EQ(warm.evaluated, 6u + 6u) << "the cached positions were computed again";
  ExpectSameBits(cold, warm, GetParam());
  // Two positions past the cached blocks: a rest of two tokens, alone.
  std::vector<int32_t> longer = prompt;
  longer.resize(66);
  const PrefixRun one = RunPrompt(*e, longer, 2, true);
  EXPECT_EQ(one.matched, 64);
  ExpectSameBits(RunPrompt(*e, longer, 2, false), one, std::string(GetParam()) + ", 66 tokens");
  // A prompt that leaves the chain 8 tokens into a block: those rows are
  // copied on the device into a block of its own (plans without windows).
  std::vector<int32_t> other(prompt.begin(), prompt.begin() + 40);
  const std::vector<int32_t> tail = CyclicPrompt(20, 3, e->info().vocab);
  other.insert(other.end(), tail.begin(), tail.end());
  ASSERT_NE(other[40], prompt[40]);
  const PrefixRun part = RunPrompt(*e, other, 2, true);
  const std::string model = GetParam();
  if (!model.starts_with("gptoss") && !model.starts_with("gemma")) {
    EXPECT_EQ(part.matched, 40);
  }
  ExpectSameBits(RunPrompt(*e, other, 2, false), part, model + ", rows copied");
  EXPECT_GT(e->kv_pool().prefix_hit_tokens, 0u);
  EXPECT_EQ(e->kv_pool().blocks_free, e->kv_pool().blocks_total) << "held blocks leaked";
}

// Dense and MoE (grouped expert matmuls), F16 (cuBLAS) and quantized
// (dequantized to f16 for tensor cores), Phi-3's split QKV, learned
// positions, sliding windows (gpt-oss with sinks, gemma2: the windows come
// from ring copies, ring_snapshots.h).
INSTANTIATE_TEST_SUITE_P(Fixtures, CudaPrefixCache,
                         ::testing::Values("qwen2-tiny.Q4_K_M", "phi3-tiny.Q4_K_M", "gpt2-tiny.F16",
                                           "qwen3moe-tiny.Q4_K_M", "llama3-tiny.F16",
                                           "gptoss-tiny.MXFP4_MOE", "gemma2-tiny.Q4_K_M"),
                         ModelParamName);

}  // namespace
}  // namespace orcd::testing
