// The gpt-oss MoE path reads only the experts the router picked: a decode
// step's MOE weight traffic (the executor's bytes counter, which the MOE
// adapter reports from the experts it actually ran) is exactly
// n_expert_used experts' gate/up/down slices and biases per layer, a
// fraction n_expert_used / n_expert of the expert weights. That is the
// memory traffic a user pays per generated token (for GPT-OSS-20B: 4 of 32
// experts). Also: the model view reports the expert counts /health shows.
#include <gtest/gtest.h>

#include <string>

#include "engine_test_support.h"
#include "golden.h"

namespace orcd::testing {
namespace {

// Bytes of one expert across the MOE instruction's weights (all weights are
// stacks of n_expert equal slices).
uint64_t BytesPerExpert(const engine::BoundInstruction& moe, uint64_t n_expert) {
  uint64_t total = 0;
  for (const engine::WeightRef* w : moe.weights) total += w->n_bytes;
  EXPECT_EQ(total % n_expert, 0u);
  return total / n_expert;
}

class GptOssMoe : public ::testing::TestWithParam<const char*> {};

TEST_P(GptOssMoe, DecodeReadsOnlyTheSelectedExperts) {
  auto engine = LoadFixtureEngine(GetParam());
  const engine::ModelInfo& info = engine->info();
  ASSERT_EQ(info.expert_count, 8);
  ASSERT_EQ(info.expert_used_count, 2);

  const engine::BoundPhase& decode = engine->bound_plan().phase(engine::Phase::kDecode);
  uint64_t per_expert = 0, layers = 0;
  for (const engine::BoundInstruction& insn : decode.instructions) {
    if (insn.opcode != ORCD_OP_MOE) continue;
    ++layers;
    per_expert = BytesPerExpert(insn, 8);
  }
  ASSERT_EQ(layers, 2u);

  const Golden golden = LoadGolden(GetParam());
  engine->Prefill(golden.prompt);
  engine->counters().Reset();
  for (int step = 0; step < 4; ++step) {
    engine->Decode(golden.greedy[step]);
    const engine::OpCounter& moe = engine->counters().op(ORCD_OP_MOE);
    EXPECT_EQ(moe.dispatches, layers * (step + 1));
    // Exactly 2 of 8 experts per layer per token: a quarter of the expert bytes.
    EXPECT_EQ(moe.weight_bytes, (step + 1) * layers * 2 * per_expert) << "step " << step;
  }
}

TEST_P(GptOssMoe, PrefillReadsEachPickedExpertOncePerBatch) {
  auto engine = LoadFixtureEngine(GetParam());
  const Golden golden = LoadGolden(GetParam());
  engine->counters().Reset();
  engine->Prefill(golden.prompt);
  const engine::OpCounter& moe = engine->counters().op(ORCD_OP_MOE);
  uint64_t all_experts = 0;
  for (const engine::BoundInstruction& insn :
       engine->bound_plan().phase(engine::Phase::kPrefill).instructions) {
    if (insn.opcode == ORCD_OP_MOE) all_experts += BytesPerExpert(insn, 8) * 8;
  }
  // 30 tokens x 2 picks spread over 8 experts: each expert's weights are read
  // at most once for the whole batch (grouped by expert), never per token.
  EXPECT_EQ(moe.dispatches, 2u);
  EXPECT_GT(moe.weight_bytes, 0u);
  EXPECT_LE(moe.weight_bytes, all_experts);
}

INSTANTIATE_TEST_SUITE_P(Files, GptOssMoe,
                         ::testing::Values("gptoss-tiny.F16", "gptoss-tiny.MXFP4_MOE"),
                         ModelParamName);

TEST(GptModelInfo, DenseAndMoeFactsForHealth) {
  auto gpt2 = LoadFixtureEngine("gpt2-tiny.Q8_0");
  EXPECT_EQ(gpt2->info().architecture, "gpt2");
  EXPECT_EQ(gpt2->info().quant_kind, "Q8_0");
  EXPECT_EQ(gpt2->info().expert_count, 0);
  EXPECT_EQ(gpt2->info().train_context_length, 256);
  auto oss = LoadFixtureEngine("gptoss-tiny.MXFP4_MOE");
  EXPECT_EQ(oss->info().architecture, "gpt-oss");
  EXPECT_EQ(oss->info().arch_plugin, "gpt");
  EXPECT_EQ(oss->info().quant_kind, "MXFP4");
  EXPECT_EQ(oss->info().expert_count, 8);
  EXPECT_EQ(oss->info().expert_used_count, 2);
  EXPECT_EQ(oss->info().train_context_length, 512);
}

}  // namespace
}  // namespace orcd::testing
