// Sliding-window attention keeps only its window of KV: gpt-oss's even layers
// (window 16 in gptoss-tiny) hold a 16-position ring whatever the context
// length, while the odd, full-attention layers grow with it. What a user sees:
// the KV memory of a long-context gpt-oss is about half that of keeping every
// layer at full length, and results past the window stay right (the .long
// golden, 60 + 16 positions, passes in gpt_golden_test; here the same
// sequence fed in small batches, so the ring wraps between and inside them,
// gives the same logits as one batch).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine_test_support.h"
#include "golden.h"
#include "host/engine/kv_cache.h"

namespace orcd::testing {
namespace {

// gptoss-tiny: 2 KV heads x head_dim 64, f16 K and V.
constexpr uint64_t kBytesPerPosition = 2 * 64 * 2 * 2;

TEST(SlidingWindowKv, RingIsBoundedByTheWindow) {
  const std::vector<engine::KvStateDesc> states = {{0, 2, 64, 16}, {1, 2, 64, 0}};
  for (int64_t context : {512, 4096, 131072}) {
    const engine::KvCache kv(states, context, engine::KvType::kF16);
    EXPECT_EQ(kv.layer(0).capacity, 16) << context;
    EXPECT_EQ(kv.layer(0).bytes, 16 * kBytesPerPosition) << context;
    EXPECT_EQ(kv.layer(1).capacity, context);
    EXPECT_EQ(kv.bytes(), (16 + static_cast<uint64_t>(context)) * kBytesPerPosition);
  }
  // A window wider than the context is capped by the context.
  const engine::KvCache small(states, 8, engine::KvType::kF16);
  EXPECT_EQ(small.layer(0).capacity, 8);
}

TEST(SlidingWindowKv, GptOssEngineAllocatesTheWindowOnly) {
  for (int64_t context : {512, 2048}) {
    engine::EngineOptions options;
    options.context_length = context;
    options.kv_block_tokens = 16;
    options.prefix_cache = false;  // below: what prefix caching adds
    auto engine = LoadFixtureEngine("gptoss-tiny.F16", options);
    // Layer 0 (sliding): 16 positions; layer 1 (full): the context.
    EXPECT_EQ(engine->info().kv_bytes, (16 + static_cast<uint64_t>(context)) * kBytesPerPosition);
    // Three sequences: three rings of the window, three contexts of blocks.
    options.max_sequences = 3;
    auto three = LoadFixtureEngine("gptoss-tiny.F16", options);
    EXPECT_EQ(three->info().kv_bytes,
              3 * (16 + static_cast<uint64_t>(context)) * kBytesPerPosition);
    EXPECT_EQ(three->kv_pool().blocks_total, 3 * context / 16);
    // Prefix caching: a spare ring per sequence for copies of windows, and a
    // block of margin in every ring (ring_snapshots.h).
    options.prefix_cache = true;
    auto cached = LoadFixtureEngine("gptoss-tiny.F16", options);
    EXPECT_EQ(cached->info().kv_bytes,
              (6 * (16 + 16) + 3 * static_cast<uint64_t>(context)) * kBytesPerPosition);
  }
  // The ring is whole blocks: a 16-position window in blocks of 32 holds 32.
  engine::EngineOptions options;
  options.context_length = 512;
  options.kv_block_tokens = 32;
  options.prefix_cache = false;
  auto engine = LoadFixtureEngine("gptoss-tiny.F16", options);
  EXPECT_EQ(engine->info().kv_bytes, (32 + 512ull) * kBytesPerPosition);
}

TEST(SlidingWindowKv, SmallBatchesMatchOneBatchPastTheWindow) {
  const Golden golden = LoadGolden("gptoss-tiny.F16.long");  // 60 prompt tokens
  auto whole = LoadFixtureEngine("gptoss-tiny.F16");
  const std::vector<float> expected = TeacherForcedLogits(*whole, golden.prompt, golden.greedy);
  engine::EngineOptions options;
  options.max_batch = 7;  // 9 passes over a 16-position ring
  auto chunked = LoadFixtureEngine("gptoss-tiny.F16", options);
  const std::vector<float> ours = TeacherForcedLogits(*chunked, golden.prompt, golden.greedy);
  ASSERT_EQ(ours.size(), expected.size());
  // A prompt token's arithmetic never depends on how the prompt was cut
  // into passes (TokenKind): the same bits.
  const RowStats s = CompareRows(ours, expected, golden.vocab);
  EXPECT_EQ(s.max, 0.0f) << "worst row " << s.max;
  // And both still match the reference within the F16 tolerance.
  EXPECT_LE(CompareRows(ours, golden.logits, golden.vocab).p90, 4e-3);
}

}  // namespace
}  // namespace orcd::testing
