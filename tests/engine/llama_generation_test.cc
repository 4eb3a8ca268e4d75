// What a user of the llama plugin relies on beyond matching logits: the same
// prompt and seed give the same tokens on every run, and a prompt is
// evaluated as matrix-matrix work (each weight read once per pass, not once
// per prompt token).
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "engine_test_support.h"
#include "golden.h"
#include "host/sampling/sampler.h"

namespace orcd::testing {
namespace {

std::vector<int32_t> Generate(const std::string& model, const std::vector<int32_t>& prompt,
                              const SamplerConfig& config, int n) {
  auto engine = LoadFixtureEngine(model);
  Sampler sampler(config);
  std::span<const float> row = engine->Prefill(prompt);
  std::vector<float> logits(row.begin(), row.end());
  std::vector<int32_t> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(sampler.Sample(logits));
    row = engine->Decode(out.back());
    logits.assign(row.begin(), row.end());
  }
  return out;
}

class SameSeedSameTokens : public ::testing::TestWithParam<double> {};

TEST_P(SameSeedSameTokens, TwoRunsAgree) {
  const Golden golden = LoadGolden("qwen2-tiny.Q4_K_M");
  SamplerConfig config;
  config.temperature = GetParam();
  config.top_k = 40;
  config.top_p = 0.95;
  config.seed = 1234;
  const std::vector<int32_t> first = Generate("qwen2-tiny.Q4_K_M", golden.prompt, config, 24);
  const std::vector<int32_t> second = Generate("qwen2-tiny.Q4_K_M", golden.prompt, config, 24);
  EXPECT_EQ(first, second);
  if (config.temperature > 0) {
    // Not vacuous: sampling at 0.7 over flat logits does not repeat one token.
    EXPECT_GT(std::set<int32_t>(first.begin(), first.end()).size(), 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(Temperatures, SameSeedSameTokens, ::testing::Values(0.0, 0.7));

int64_t CountInstructions(const engine::Engine& e, engine::Phase phase, engine::Opcode op) {
  int64_t n = 0;
  for (const engine::BoundInstruction& insn : e.bound_plan().phase(phase).instructions) {
    n += insn.opcode == op ? 1 : 0;
  }
  return n;
}

TEST(PrefillIsMatrixMatrix, FortyTokensDispatchEachMatmulOnce) {
  for (const char* model : {"qwen2-tiny.Q4_K_M", "phi3-tiny.Q4_K_M"}) {
    SCOPED_TRACE(model);
    auto engine = LoadFixtureEngine(model);
    const int64_t matmuls = CountInstructions(*engine, engine::Phase::kPrefill, ORCD_OP_MATMUL);
    ASSERT_GT(matmuls, 0);
    std::vector<int32_t> prompt(40);
    for (int i = 0; i < 40; ++i) prompt[i] = 100 + 7 * i;
    engine->counters().Reset();
    engine->Prefill(prompt);
    const engine::DispatchCounters& c = engine->counters();
    EXPECT_EQ(c.phase(engine::Phase::kPrefill).runs, 1u);
    EXPECT_EQ(c.phase(engine::Phase::kPrefill).tokens, 40u);
    EXPECT_EQ(c.op(ORCD_OP_MATMUL).dispatches, static_cast<uint64_t>(matmuls));
    EXPECT_EQ(c.op(ORCD_OP_LOGITS).dispatches, 1u);

    // The same weights, read once for 40 tokens, are what one decode step reads.
    const uint64_t prefill_bytes = c.op(ORCD_OP_MATMUL).weight_bytes;
    engine->counters().Reset();
    engine->Decode(prompt[0]);
    EXPECT_EQ(engine->counters().op(ORCD_OP_MATMUL).weight_bytes, prefill_bytes);
  }
}

TEST(PrefillIsMatrixMatrix, LongPromptsSplitIntoBatches) {
  engine::EngineOptions options;
  options.max_batch = 16;
  auto engine = LoadFixtureEngine("qwen2-tiny.F16", options);
  const int64_t matmuls = CountInstructions(*engine, engine::Phase::kPrefill, ORCD_OP_MATMUL);
  std::vector<int32_t> prompt(40, 42);
  engine->counters().Reset();
  engine->Prefill(prompt);
  EXPECT_EQ(engine->counters().phase(engine::Phase::kPrefill).runs, 3u);  // 16 + 16 + 8
  EXPECT_EQ(engine->counters().op(ORCD_OP_MATMUL).dispatches, static_cast<uint64_t>(3 * matmuls));
}

}  // namespace
}  // namespace orcd::testing
