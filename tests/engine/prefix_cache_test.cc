// Prefix caching (Engine::MatchPrefix over KvBlockPool): a prompt whose
// leading full blocks were evaluated before maps them instead of computing
// them again, and gives bit for bit the logits of a cold run (the engine's
// batch invariance: a token's KV depends on its prefix alone, not on how it
// was chunked or who shared its step). Exact equality, no tolerance. Also:
// salts keep requests apart, blocks holding generated tokens (other
// arithmetic) are never matched, eviction never maps stale content, and
// plans with sliding windows (per-sequence rings) do not cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine_test_support.h"
#include "golden.h"
#include "host/engine/engine.h"
#include "host/engine/kv_block_pool.h"
#include "prefix_runs.h"

namespace orcd::testing {
namespace {

constexpr int64_t kBlock = 16;

engine::EngineOptions Options(int64_t context = 256) {
  engine::EngineOptions o;
  o.max_sequences = 2;
  o.context_length = context;
  o.kv_block_tokens = kBlock;
  o.threads = 2;
  return o;
}

class PrefixCache : public ::testing::TestWithParam<const char*> {};

TEST_P(PrefixCache, AHitGivesTheColdBitsAndSkipsTheCachedBlocks) {
  auto e = LoadFixtureEngine(GetParam(), Options());
  ASSERT_TRUE(e->kv_pool().prefix_cache);
  const std::vector<int32_t> prompt = CyclicPrompt(70, 1, e->info().vocab);
  const PrefixRun cold = RunPrompt(*e, prompt, 8, false);
  const PrefixRun warm = RunPrompt(*e, prompt, 8, true);
  EXPECT_EQ(warm.matched, 64) << "the prompt's four full blocks (its last token is evaluated)";
  EXPECT_EQ(warm.evaluated, 6u + 8u) << "the cached positions were computed again";
  ExpectSameBits(cold, warm, GetParam());
  EXPECT_EQ(e->kv_pool().prefix_hit_tokens, 64u);
  EXPECT_EQ(e->kv_pool().blocks_free, e->kv_pool().blocks_total) << "held blocks leaked";

  // Another salt (another tenant) finds nothing; the same salt does.
  EXPECT_EQ(RunPrompt(*e, prompt, 1, true, 7).matched, 0);
  EXPECT_EQ(RunPrompt(*e, prompt, 1, true, 7).matched, 64);

  // An admission undone before its sequence ran (the scheduler found too few
  // blocks and retries later) does not count in /metrics' hit ratio.
  const engine::KvPoolInfo before = e->kv_pool();
  const int s = e->OpenSequence();
  EXPECT_EQ(e->MatchPrefix(s, prompt), 64);
  e->CloseSequence(s);
  EXPECT_EQ(e->kv_pool().prefix_query_tokens, before.prefix_query_tokens);
  EXPECT_EQ(e->kv_pool().prefix_hit_tokens, before.prefix_hit_tokens);
}

// Generated tokens run decode arithmetic: a later prompt holding them (the
// next chat turn) maps only the blocks of prompt tokens before them.
TEST_P(PrefixCache, BlocksOfGeneratedTokensAreNotMatched) {
  auto e = LoadFixtureEngine(GetParam(), Options());
  const std::vector<int32_t> first = CyclicPrompt(64, 2, e->info().vocab);
  const PrefixRun turn = RunPrompt(*e, first, 20, true);
  std::vector<int32_t> next = first;
  next.insert(next.end(), turn.tokens.begin(), turn.tokens.end());  // 84 tokens
  const PrefixRun warm = RunPrompt(*e, next, 4, true);
  EXPECT_EQ(warm.matched, 64) << "a block of generated tokens was matched as prompt";
  const auto cold_engine = LoadFixtureEngine(GetParam(), Options());
  ExpectSameBits(RunPrompt(*cold_engine, next, 4, false), warm, GetParam());
}

// A pool of 8 blocks: a second prompt evicts the first one's cached tail
// (least recently used first); the first prompt then maps what is left of
// its chain, and still gives the cold bits.
TEST_P(PrefixCache, EvictionKeepsWhatIsLeftOfAChainAndNeverMapsStaleBlocks) {
  engine::EngineOptions o = Options(128);
  o.max_sequences = 1;
  auto e = LoadFixtureEngine(GetParam(), o);
  ASSERT_EQ(e->kv_pool().blocks_total, 8);
  const std::vector<int32_t> p = CyclicPrompt(70, 3, e->info().vocab);
  const std::vector<int32_t> q = CyclicPrompt(100, 4, e->info().vocab);
  const PrefixRun cold = RunPrompt(*e, p, 8, true);
  EXPECT_EQ(e->kv_pool().blocks_cached, 4);
  RunPrompt(*e, q, 8, true);  // 7 blocks: the 4 free ones, then 3 evicted
  EXPECT_EQ(e->kv_pool().evictions, 3u);
  const PrefixRun warm = RunPrompt(*e, p, 8, true);
  EXPECT_EQ(warm.matched, 16) << "only the chain's first block survived";
  ExpectSameBits(cold, warm, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Families, PrefixCache,
                         ::testing::Values("qwen2-tiny.Q4_K_M", "qwen2-tiny.F16",
                                           "phi3-tiny.Q4_K_M", "gpt2-tiny.Q8_0",
                                           "real/stories260K"),
                         ModelParamName);

// gpt-oss keeps its sliding-window layers in per-sequence rings that a cached
// block does not carry: no caching, and MatchPrefix maps nothing.
TEST(PrefixCacheOff, PlansWithSlidingWindowsAndTheOption) {
  auto swa = LoadFixtureEngine("gptoss-tiny.MXFP4_MOE", Options());
  EXPECT_FALSE(swa->kv_pool().prefix_cache);
  const std::vector<int32_t> prompt = CyclicPrompt(40, 5, swa->info().vocab);
  RunPrompt(*swa, prompt, 1, true);
  EXPECT_EQ(RunPrompt(*swa, prompt, 1, true).matched, 0);

  engine::EngineOptions off = Options();
  off.prefix_cache = false;
  auto e = LoadFixtureEngine("qwen2-tiny.Q4_K_M", off);
  RunPrompt(*e, prompt, 1, true);
  EXPECT_EQ(RunPrompt(*e, prompt, 1, true).matched, 0);
}

// The pool alone: a child whose parent was evicted and retaken is never
// found through the parent's block id again (its key holds the parent's
// generation), and a lookup never returns another salt's block.
TEST(KvBlockPool, AnEvictedParentsChildrenAreNeverFoundAgain) {
  engine::KvBlockPool pool(2, 2);
  const std::vector<int32_t> t1 = {1, 2}, t2 = {3, 4}, t3 = {5, 6};
  const int32_t a = pool.Take();
  const int32_t b = pool.Take();
  pool.Register(a, -1, t1, 0);
  pool.Register(b, a, t2, 0);
  EXPECT_EQ(pool.Take(), -1) << "both blocks are held";
  pool.Release(a);  // a is the least recently used now
  pool.Release(b);
  EXPECT_EQ(pool.available(), 2);
  EXPECT_EQ(pool.Acquire(-1, t1, 1), -1) << "another salt";
  const int32_t x = pool.Take();  // evicts a
  EXPECT_EQ(x, a);
  pool.Register(x, -1, t3, 0);
  EXPECT_EQ(pool.Acquire(-1, t1, 0), -1) << "evicted content found";
  EXPECT_EQ(pool.Acquire(x, t2, 0), -1) << "a stale child found through its parent's new content";
  EXPECT_EQ(pool.Acquire(-1, t3, 0), x);
  EXPECT_EQ(pool.evictions(), 1u);
}

}  // namespace
}  // namespace orcd::testing
