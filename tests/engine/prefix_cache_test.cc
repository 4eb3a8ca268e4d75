// Prefix caching (Engine::MatchPrefix over KvBlockPool): a prompt whose
// leading full blocks were evaluated before maps them instead of computing
// them again, and gives bit for bit the logits of a cold run (the engine's
// batch invariance: a token's KV depends on its prefix alone, not on how it
// was chunked or who shared its step). Exact equality, no tolerance. Also:
// salts keep requests apart, blocks holding generated tokens (other
// arithmetic) are never matched, eviction never maps stale content, and
// plans with sliding windows map a block only with a copy of the windows as
// they stood at its end.
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

bool HasWindows(const std::string& model) {
  return model.starts_with("gptoss") || model.starts_with("gemma");
}

// A prompt that leaves the cached chain part way through a block (another
// question after a shared beginning) maps the whole blocks and copies the
// matching leading rows of the next one into a block of its own: the cold
// bits again, and the cached block stays as it was for the prompt that
// filled it. Plans with windows map whole blocks only (their rings hold no
// such rows).
TEST_P(PrefixCache, APromptThatLeavesABlockPartWayCopiesItsLeadingRows) {
  auto e = LoadFixtureEngine(GetParam(), Options());
  auto fresh = LoadFixtureEngine(GetParam(), Options());
  const std::vector<int32_t> p = CyclicPrompt(70, 10, e->info().vocab);
  const PrefixRun p_cold = RunPrompt(*e, p, 2, true);  // caches blocks 0-3
  std::vector<int32_t> q(p.begin(), p.begin() + 40);   // leaves block 2 after 8 tokens
  const std::vector<int32_t> tail = CyclicPrompt(30, 11, e->info().vocab);
  q.insert(q.end(), tail.begin(), tail.end());
  ASSERT_NE(q[40], p[40]);
  const uint64_t hits = e->kv_pool().prefix_hit_tokens;
  const PrefixRun warm = RunPrompt(*e, q, 4, true);
  const bool windows = HasWindows(GetParam());
  EXPECT_EQ(warm.matched, windows ? 0 : 40) << "2 blocks mapped, then 8 rows copied";
  EXPECT_EQ(e->kv_pool().prefix_hit_tokens - hits, static_cast<uint64_t>(warm.matched));
  ExpectSameBits(RunPrompt(*fresh, q, 4, false), warm, "q after p");

  // The rows copied stop before the prompt's last token (always evaluated).
  const std::vector<int32_t> head(p.begin(), p.begin() + 41);
  const PrefixRun short_warm = RunPrompt(*e, head, 2, true);
  EXPECT_EQ(short_warm.matched, windows ? 0 : 40);
  ExpectSameBits(RunPrompt(*fresh, head, 2, false), short_warm, "p's first 41 tokens");

  const PrefixRun p_again = RunPrompt(*e, p, 2, true);
  if (!windows) {
    EXPECT_EQ(p_again.matched, 64) << "the source block was lost";
  }
  ExpectSameBits(p_cold, p_again, "p again");
  EXPECT_EQ(e->kv_pool().blocks_free, e->kv_pool().blocks_total) << "held blocks leaked";
}

// The same with an 8-bit cache (34-byte rows of 32 values): rows copied
// whole, the cold bits again.
TEST(PrefixCacheQ8, CopiedRowsOfAQ8CacheGiveTheColdBits) {
  engine::EngineOptions o = Options();
  o.kv_type = engine::KvType::kQ8_0;
  auto e = LoadFixtureEngine("qwen2-tiny.Q4_K_M", o);
  auto fresh = LoadFixtureEngine("qwen2-tiny.Q4_K_M", o);
  const std::vector<int32_t> p = CyclicPrompt(70, 12, e->info().vocab);
  RunPrompt(*e, p, 2, true);
  std::vector<int32_t> q(p.begin(), p.begin() + 45);  // 2 blocks and 13 rows
  const std::vector<int32_t> tail = CyclicPrompt(20, 13, e->info().vocab);
  q.insert(q.end(), tail.begin(), tail.end());
  ASSERT_NE(q[45], p[45]);
  const PrefixRun warm = RunPrompt(*e, q, 4, true);
  EXPECT_EQ(warm.matched, 45);
  ExpectSameBits(RunPrompt(*fresh, q, 4, false), warm, "q8_0 cache");
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
// its chain, and still gives the cold bits. With sliding windows it maps
// nothing: the copy of its windows (at its last block) was the one spare
// ring, which the second prompt's copy took.
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
  EXPECT_EQ(warm.matched, HasWindows(GetParam()) ? 0 : 16)
      << "only the chain's first block survived (and no copy of windows there)";
  ExpectSameBits(cold, warm, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Families, PrefixCache,
                         ::testing::Values("qwen2-tiny.Q4_K_M", "qwen2-tiny.F16",
                                           "phi3-tiny.Q4_K_M", "gpt2-tiny.Q8_0", "real/stories260K",
                                           "gptoss-tiny.MXFP4_MOE", "gemma2-tiny.Q4_K_M",
                                           "gemma3-tiny.Q4_K_M"),
                         ModelParamName);

// Sliding-window layers (16-position windows here) keep each sequence's
// window in a ring; a block boundary whose windows were copied after a step
// reached it can be mapped, no other (ring_snapshots.h). Prompts in 16-token
// chunks leave copies at every block end (four sequences: four spare rings);
// one step of 70 tokens leaves one, at its last full block. Every hit gives
// the cold bits; a prompt that shares blocks without copied windows maps
// nothing, and its own blocks chain on from the shared ones (the next time
// it maps them all).
class PrefixCacheWindows : public ::testing::TestWithParam<const char*> {};

TEST_P(PrefixCacheWindows, AChainIsMappedUpToItsDeepestCopyOfTheWindows) {
  engine::EngineOptions o = Options();
  o.max_sequences = 4;
  auto e = LoadFixtureEngine(GetParam(), o);
  ASSERT_TRUE(e->kv_pool().prefix_cache);
  auto fresh = LoadFixtureEngine(GetParam(), o);  // cold runs for the bits
  const std::vector<int32_t> p = CyclicPrompt(70, 6, e->info().vocab);
  std::vector<int32_t> q(p.begin(), p.begin() + 40);  // shares blocks 0 and 1
  const std::vector<int32_t> tail = CyclicPrompt(30, 7, e->info().vocab);
  q.insert(q.end(), tail.begin(), tail.end());

  RunPrompt(*e, p, 2, false, 0, 16);  // copies at 16, 32, 48, 64
  const PrefixRun shared = RunPrompt(*e, q, 4, true);
  EXPECT_EQ(shared.matched, 32) << "the deepest shared block with copied windows";
  ExpectSameBits(RunPrompt(*fresh, q, 4, false), shared, "q after p in chunks");

  auto one_step = LoadFixtureEngine(GetParam(), o);
  RunPrompt(*one_step, p, 2, false);  // one copy, at 64
  EXPECT_EQ(RunPrompt(*one_step, p, 2, true).matched, 64);
  const PrefixRun unshared = RunPrompt(*one_step, q, 4, true);
  EXPECT_EQ(unshared.matched, 0) << "blocks without copied windows were mapped";
  ExpectSameBits(RunPrompt(*fresh, q, 4, false), unshared, "q after p in one step");
  const PrefixRun again = RunPrompt(*one_step, q, 4, true);
  EXPECT_EQ(again.matched, 64) << "q's blocks do not chain on from the shared ones";
  ExpectSameBits(unshared, again, "q again");

  // Where MatchPrefix found blocks it could not map, a prompt step that ends
  // at their end (the scheduler's cut: PromptStop) leaves their windows, and
  // the next prompt with that beginning maps them.
  const auto sharing = [&](int32_t seed) {
    std::vector<int32_t> x(p.begin(), p.begin() + 40);
    const std::vector<int32_t> rest = CyclicPrompt(30, seed, e->info().vocab);
    x.insert(x.end(), rest.begin(), rest.end());
    return x;
  };
  const std::vector<int32_t> r = sharing(8);
  const int s = one_step->OpenSequence();
  EXPECT_EQ(one_step->MatchPrefix(s, r), 0);
  EXPECT_EQ(one_step->PromptStop(s), 32);
  ASSERT_TRUE(one_step->Reserve(s, static_cast<int64_t>(r.size())));
  engine::StepPart head{s, std::span<const int32_t>(r).first(32), 32};
  head.logits = false;
  one_step->Step({&head, 1});
  EXPECT_EQ(one_step->PromptStop(s), 0) << "the stop is behind the sequence now";
  engine::StepPart rest{s, std::span<const int32_t>(r).subspan(32), 38};
  one_step->Step({&rest, 1});
  one_step->CloseSequence(s);
  const std::vector<int32_t> r2 = sharing(9);
  const PrefixRun third = RunPrompt(*one_step, r2, 4, true);
  EXPECT_EQ(third.matched, 32) << "the shared beginning's windows were not left";
  ExpectSameBits(RunPrompt(*fresh, r2, 4, false), third, "a third prompt sharing p's beginning");
  EXPECT_EQ(one_step->kv_pool().blocks_free, one_step->kv_pool().blocks_total);
}

INSTANTIATE_TEST_SUITE_P(Families, PrefixCacheWindows,
                         ::testing::Values("gptoss-tiny.MXFP4_MOE", "gemma2-tiny.Q4_K_M"),
                         ModelParamName);

// The option turns caching off.
TEST(PrefixCacheOff, TheOption) {
  engine::EngineOptions off = Options();
  off.prefix_cache = false;
  for (const char* model : {"qwen2-tiny.Q4_K_M", "gptoss-tiny.MXFP4_MOE"}) {
    auto e = LoadFixtureEngine(model, off);
    EXPECT_FALSE(e->kv_pool().prefix_cache);
    const std::vector<int32_t> prompt = CyclicPrompt(40, 5, e->info().vocab);
    RunPrompt(*e, prompt, 1, true);
    EXPECT_EQ(RunPrompt(*e, prompt, 1, true).matched, 0) << model;
  }
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

// The child sharing the longest leading run with the tokens is found (and
// held), under its salt only, never through a parent's new content.
TEST(KvBlockPool, TheChildWithTheLongestLeadingRunIsFoundAndHeld) {
  engine::KvBlockPool pool(4, 4);
  const std::vector<int32_t> root = {1, 2, 3, 4}, c1 = {5, 6, 7, 8}, c2 = {5, 6, 9, 9};
  const int32_t r = pool.Take(), a = pool.Take(), b = pool.Take();
  pool.Register(r, -1, root, 0);
  pool.Register(a, r, c1, 0);
  pool.Register(b, r, c2, 0);
  for (const int32_t k : {r, a, b}) pool.Release(k);
  int64_t matched = -1;
  EXPECT_EQ(pool.AcquireLongestChild(r, std::vector<int32_t>{5, 6, 9, 1}, 0, &matched), b);
  EXPECT_EQ(matched, 3);
  EXPECT_EQ(pool.available(), 3) << "the block found is held";
  pool.Release(b);
  EXPECT_EQ(pool.AcquireLongestChild(r, std::vector<int32_t>{5, 6, 7}, 0, &matched), a);
  EXPECT_EQ(matched, 3);
  pool.Release(a);
  EXPECT_EQ(pool.AcquireLongestChild(r, std::vector<int32_t>{4, 6}, 0, &matched), -1);
  EXPECT_EQ(matched, 0);
  EXPECT_EQ(pool.AcquireLongestChild(r, std::vector<int32_t>{5, 6}, 1, &matched), -1)
      << "another salt";
  EXPECT_EQ(pool.AcquireLongestChild(-1, std::vector<int32_t>{1, 2, 3}, 0, &matched), r);
  EXPECT_EQ(matched, 3);
  pool.Release(r);
  // a and b used after r: r is the least recently used.
  ASSERT_EQ(pool.AcquireLongestChild(r, std::vector<int32_t>{5, 6, 7}, 0, &matched), a);
  pool.Release(a);
  ASSERT_EQ(pool.AcquireLongestChild(r, std::vector<int32_t>{5, 6, 9}, 0, &matched), b);
  pool.Release(b);
  // r evicted first and taken for new content: its old children are stale.
  pool.Take();  // the free block
  const int32_t x = pool.Take();
  ASSERT_EQ(x, r);
  pool.Register(x, -1, std::vector<int32_t>{7, 7, 7, 7}, 0);
  EXPECT_EQ(pool.AcquireLongestChild(x, std::vector<int32_t>{5, 6}, 0, &matched), -1)
      << "a stale child found through its parent's new content";
}

}  // namespace
}  // namespace orcd::testing
