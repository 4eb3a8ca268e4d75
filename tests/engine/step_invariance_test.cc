// Many sequences in one step (Engine::Step) over every fixture family: a
// sequence's logits are bit-identical whether it runs alone, beside seven
// others with staggered starts and chunked prompts, or after its KV was
// dropped and recomputed (a preemption). Exact equality, no tolerance: the
// engine promises the same arithmetic for a token whatever shares its step
// (a token's kind fixes its matmul path; attention never mixes sequences).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "engine_test_support.h"
#include "golden.h"
#include "host/common/status.h"
#include "host/engine/engine.h"
#include "step_runs.h"

namespace orcd::testing {
namespace {

constexpr int kSequences = 8;
constexpr int kGenerated = 6;  // greedy tokens after each prompt

std::vector<std::vector<int32_t>> Prompts(int64_t vocab) {
  return RandomPrompts(vocab, 1234, {5, 13, 1, 40, 7, 22, 3, 17});
}

void ExpectEachSequenceGetsItsSoloBits(const char* model, engine::KvType kv_type) {
  engine::EngineOptions options;
  options.max_sequences = kSequences;
  options.context_length = 128;
  options.threads = 2;
  options.kv_type = kv_type;
  auto e = LoadFixtureEngine(model, options);
  const auto prompts = Prompts(e->info().vocab);
  std::vector<SeqRun> solo;
  for (const auto& p : prompts) solo.push_back(SoloRun(*e, p, kGenerated));

  // The single-sequence API is the same computation.
  e->Reset();
  std::span<const float> first = e->Prefill(prompts[1]);
  EXPECT_EQ(0, std::memcmp(first.data(), solo[1].logits.data(), first.size_bytes()))
      << "Prefill() differs from a one-sequence step";
  e->Reset();  // closes the single-sequence API's sequence

  for (const int64_t chunk : {int64_t{8}, int64_t{3}}) {
    for (const bool preempt : {false, true}) {
      SCOPED_TRACE("chunk " + std::to_string(chunk) + (preempt ? ", with a preemption" : ""));
      ExpectSoloBits(ChunkedTogether(*e, prompts, kGenerated, chunk, preempt), solo);
      EXPECT_EQ(e->kv_pool().blocks_free, e->kv_pool().blocks_total) << "blocks leaked";
    }
  }
}

class StepInvariance : public ::testing::TestWithParam<const char*> {};

TEST_P(StepInvariance, EachSequenceGetsItsSoloBits) {
  ExpectEachSequenceGetsItsSoloBits(GetParam(), engine::KvType::kF16);
}

// The KV cache in q8_0: a batch's own keys are staged in q8_0 before they are
// stored, so they are read back with the bits a later step reads from the
// cache (a dense model, and gpt-oss's sliding windows with sinks).
TEST(StepInvarianceKvQ8, EachSequenceGetsItsSoloBits) {
  for (const char* model : {"qwen2-tiny.Q4_K_M", "gptoss-tiny.F16"}) {
    SCOPED_TRACE(model);
    ExpectEachSequenceGetsItsSoloBits(model, engine::KvType::kQ8_0);
  }
}

// Dense and MoE, F16 and quantized, RoPE and learned positions, sliding
// windows with sinks, K-quants (matmul_q8) and Q4_0/Q8_0 (matvec_q8 only);
// q/k norms, softmax-gated experts, Gemma's local/global layers and soft-caps.
INSTANTIATE_TEST_SUITE_P(Fixtures, StepInvariance,
                         ::testing::Values("qwen2-tiny.Q4_K_M", "qwen2-tiny.Q4_0", "qwen2-tiny.F16",
                                           "phi3-tiny.Q4_K_M", "llama3-tiny.Q4_K_M",
                                           "gpt2-tiny.Q8_0", "gpt2-tiny.F16",
                                           "gptoss-tiny.MXFP4_MOE", "gptoss-tiny.F16",
                                           "llama3-tiny.F16", "qwen3-tiny.Q4_K_M",
                                           "qwen3moe-tiny.Q4_K_M", "gemma2-tiny.Q4_K_M",
                                           "gemma3-tiny.F16"),
                         ModelParamName);

// A stop asked for during a long prompt chunk (a cancel) lands inside an
// instruction, not at its end: the engine asks the check between the pieces
// of an instruction as well as between instructions, throws kStopped, and
// leaves nothing behind that changes the next sequence's bits.
TEST(StepStop, LandsInsideAnInstructionAndLeavesTheEngineIntact) {
  engine::EngineOptions options;
  options.max_sequences = 2;
  options.context_length = 512;
  options.threads = 2;
  auto e = LoadFixtureEngine("qwen2-tiny.F16", options);
  std::vector<int32_t> prompt(256);
  for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int32_t>(1 + i * 7 % 200);
  const SeqRun before = SoloRun(*e, prompt, kGenerated);

  // Once, unstopped: how often the check is asked, against how many
  // instructions ran.
  int asked = 0;
  e->set_should_stop([&] {
    ++asked;
    return false;
  });
  e->counters().Reset();
  const SeqRun unstopped = SoloRun(*e, prompt, kGenerated);
  const uint64_t instructions = e->counters().total_dispatches();
  EXPECT_GT(static_cast<uint64_t>(asked), instructions)
      << "the check is only asked between instructions: a cancel waits for a whole one";

  // Stopped as soon as the first instruction is under way.
  asked = 0;
  e->set_should_stop([&] { return ++asked > 1; });
  const int seq = e->OpenSequence();
  ASSERT_GE(seq, 0);
  ASSERT_TRUE(e->Reserve(seq, static_cast<int64_t>(prompt.size())));
  engine::StepPart part{seq, prompt, static_cast<int64_t>(prompt.size())};
  try {
    e->Step({&part, 1});
    ADD_FAILURE() << "the step ran to its end after a stop";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kStopped) << err.what();
  }
  e->CloseSequence(seq);
  e->set_should_stop({});
  EXPECT_EQ(e->kv_pool().blocks_free, e->kv_pool().blocks_total) << "blocks leaked";

  const SeqRun after = SoloRun(*e, prompt, kGenerated);
  EXPECT_EQ(after.tokens, before.tokens);
  EXPECT_EQ(unstopped.logits, before.logits);
  EXPECT_EQ(0, std::memcmp(after.logits.data(), before.logits.data(),
                           before.logits.size() * sizeof(float)))
      << "a stopped step changed a later sequence's logits";
}

// Four sequences in blocks of 16 positions.
engine::EngineOptions PoolOptions(int64_t context_length) {
  engine::EngineOptions options;
  options.max_sequences = 4;
  options.context_length = context_length;
  options.kv_block_tokens = 16;
  return options;
}

TEST(KvPool, BlocksAreBoundedAndReturned) {
  engine::EngineOptions options = PoolOptions(64);
  auto full = LoadFixtureEngine("qwen2-tiny.Q4_K_M", options);
  EXPECT_EQ(full->kv_pool().blocks_total, 4 * 64 / 16);  // the default: every sequence at 64
  // A pool of 6 blocks shared by 4 sequences.
  options.kv_pool_bytes = full->info().kv_bytes / 16 * 6;
  auto e = LoadFixtureEngine("qwen2-tiny.Q4_K_M", options);
  ASSERT_EQ(e->kv_pool().blocks_total, 6);
  const int a = e->OpenSequence();
  const int b = e->OpenSequence();
  EXPECT_TRUE(e->Reserve(a, 64));  // a whole context: 4 blocks
  EXPECT_TRUE(e->Reserve(b, 17));  // 2 blocks
  EXPECT_EQ(e->kv_pool().blocks_free, 0);
  EXPECT_THROW(e->Reserve(b, 65), Error) << "past the context length";
  EXPECT_FALSE(e->Reserve(b, 33)) << "more blocks than are free";
  EXPECT_EQ(e->kv_pool().blocks_free, 0) << "a refused reservation changes nothing";
  // A step past a sequence's reserved blocks is refused, not written anywhere.
  const std::vector<int32_t> many(40, 5);
  engine::StepPart part{b, many, 40};
  EXPECT_THROW(e->Step({&part, 1}), Error);
  e->CloseSequence(a);
  EXPECT_TRUE(e->Reserve(b, 64)) << "a closed sequence's blocks are free again";
  e->CloseSequence(b);
  EXPECT_EQ(e->kv_pool().blocks_free, 6);
  for (int i = 0; i < 4; ++i) EXPECT_GE(e->OpenSequence(), 0);
  EXPECT_EQ(e->OpenSequence(), -1) << "past max_sequences";
}

TEST(KvPool, ABudgetSizesThePool) {
  engine::EngineOptions options = PoolOptions(256);
  auto full = LoadFixtureEngine("qwen2-tiny.Q4_K_M", options);
  const uint64_t per_block = full->info().kv_bytes / 64;
  options.kv_pool_bytes = per_block * 10 + per_block / 2;
  auto small = LoadFixtureEngine("qwen2-tiny.Q4_K_M", options);
  EXPECT_EQ(small->kv_pool().blocks_total, 10);
  EXPECT_LE(small->info().kv_bytes, options.kv_pool_bytes);
  options.kv_pool_bytes = per_block / 2;
  EXPECT_THROW(LoadFixtureEngine("qwen2-tiny.Q4_K_M", options), Error);
}

}  // namespace
}  // namespace orcd::testing
