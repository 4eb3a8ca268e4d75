// Masks kept across jobs (mask_cache.h) and compiled schemas kept across
// requests (grammar_cache.h): a job that reads another job's masks
// gets the bits it would have computed, without computing them; the same
// schema text gives the same grammar object, and nothing is kept past its
// bounds.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include "host/common/status.h"
#include "host/structured/compact_json.h"
#include "host/structured/grammar_cache.h"
#include "host/structured/json_schema_grammar.h"
#include "host/structured/mask_cache.h"
#include "host/structured/token_constraint.h"
#include "host/structured/token_trie.h"
#include "schema_text.h"
#include "tokenizer_test_support.h"

namespace orcd::structured {
namespace {

constexpr const char* kSchema =
    R"({"type":"object","properties":{"name":{"type":"string","maxLength":12},)"
    R"("age":{"type":"integer","minimum":0,"maximum":150},"tags":{"type":"array",)"
    R"("items":{"enum":["a","b"]}}},"required":["name","age","tags"]})";
constexpr const char* kInstance = R"({"name":"Ada Lovelace","age":36,"tags":["a","b","a"]})";

// The masked logits at every state along the instance (all logits 0 before).
std::vector<std::vector<float>> MasksAlong(TokenConstraint& constraint, const TokenTrie& trie,
                                           const std::vector<TokenId>& ids) {
  std::vector<std::vector<float>> out;
  for (size_t step = 0; step <= ids.size(); ++step) {
    std::vector<float> logits(trie.vocab_size(), 0.0f);
    constraint.Mask(logits);
    out.push_back(std::move(logits));
    if (step < ids.size()) constraint.Accept(ids[step]);
  }
  return out;
}

// The schema's instance on Qwen2's vocabulary, and its masks computed by a
// job alone (no shared cache): what every job must get.
class SharedMasks : public ::testing::Test {
 protected:
  SharedMasks()
      : trie_(testing::VocabTokenizerFor("qwen2")),
        grammar_(JsonSchemaGrammar(SchemaOf(kSchema))),
        ids_(trie_.LongestFirst(kInstance)) {
    TokenConstraint alone(grammar_, trie_);
    want_ = MasksAlong(alone, trie_, ids_);
  }

  std::vector<std::vector<float>> MasksOfAJob(std::shared_ptr<MaskCache> shared) const {
    TokenConstraint job(grammar_, trie_, std::move(shared));
    return MasksAlong(job, trie_, ids_);
  }

  const TokenTrie trie_;
  const std::shared_ptr<const Grammar> grammar_;
  const std::vector<TokenId> ids_;
  std::vector<std::vector<float>> want_;
};

TEST_F(SharedMasks, ALaterJobReadsEveryMaskAndGetsTheBitsItWouldHaveComputed) {
  ASSERT_FALSE(ids_.empty());
  auto shared = std::make_shared<MaskCache>(size_t{64} << 20);
  EXPECT_EQ(MasksOfAJob(shared), want_);
  const size_t states = shared->states();
  EXPECT_GT(states, 5u) << "the first job's states were not kept";
  // The second job meets only known states: it adds none, and every mask
  // is the one computed alone.
  EXPECT_EQ(MasksOfAJob(shared), want_);
  EXPECT_EQ(shared->states(), states);
}

TEST_F(SharedMasks, JobsOnManyThreadsShareOneCacheAndEachGetsItsOwnBits) {
  auto shared = std::make_shared<MaskCache>(size_t{64} << 20);
  std::vector<std::vector<std::vector<float>>> got(4);
  std::vector<std::thread> threads;
  for (auto& out : got) threads.emplace_back([&] { out = MasksOfAJob(shared); });
  for (std::thread& t : threads) t.join();
  for (const auto& out : got) EXPECT_EQ(out, want_);
}

TEST_F(SharedMasks, ACacheKeepsNoMoreThanItsBytesAndStillAnswersRight) {
  const size_t one_mask = (trie_.vocab_size() + 63) / 64 * sizeof(uint64_t);
  auto shared = std::make_shared<MaskCache>(3 * one_mask + 1024);  // three states' worth
  EXPECT_EQ(MasksOfAJob(shared), want_);
  EXPECT_EQ(shared->states(), 3u);
  EXPECT_EQ(MasksOfAJob(shared), want_);
}

TEST(MaskCaches, EachGrammarHasItsOwnCacheAndTheLeastRecentlyUsedIsDropped) {
  MaskCaches caches(2, 1 << 20);
  const auto a = JsonSchemaGrammar(SchemaOf(R"({"type":"integer"})"));
  const auto b = JsonSchemaGrammar(SchemaOf(R"({"type":"boolean"})"));
  const auto c = JsonSchemaGrammar(SchemaOf(R"({"type":"null"})"));
  const std::shared_ptr<MaskCache> a_cache = caches.For(a);
  EXPECT_EQ(caches.For(a), a_cache);
  EXPECT_NE(caches.For(b), a_cache);
  EXPECT_EQ(caches.For(a), a_cache);  // a used last: b is the one to go
  const std::shared_ptr<MaskCache> b_cache = caches.For(b);
  caches.For(c);
  EXPECT_EQ(caches.For(b), b_cache);
  EXPECT_NE(caches.For(a), a_cache) << "a was the least recently used of three";
}

TEST(GrammarCache, TheSameSchemaTextGivesTheSameGrammarObject) {
  const auto first = CachedJsonSchemaGrammar(SchemaOf(kSchema));
  EXPECT_EQ(CachedJsonSchemaGrammar(SchemaOf(kSchema)), first);
  // Property order is part of the grammar (instances follow the schema's
  // order): another order is another grammar.
  const auto reordered = CachedJsonSchemaGrammar(SchemaOf(
      R"({"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"integer"}}})"));
  const auto ordered = CachedJsonSchemaGrammar(SchemaOf(
      R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}})"));
  EXPECT_NE(reordered, ordered);
  // A refused schema is refused every time (nothing kept in its place).
  for (int i = 0; i < 2; ++i) {
    EXPECT_THROW(CachedJsonSchemaGrammar(SchemaOf(R"({"type":"string","contentEncoding":"x"})")),
                 Error);
  }
  // Past 64 other schemas the first is compiled again.
  for (int i = 0; i < 64; ++i)
    CachedJsonSchemaGrammar(SchemaOf(R"({"const":)" + std::to_string(i) + "}"));
  EXPECT_NE(CachedJsonSchemaGrammar(SchemaOf(kSchema)), first);
}

}  // namespace
}  // namespace orcd::structured
