// The masks' shortcuts (the state table's byte classes, text steps through
// free and counted strings, their exceptions, text runs read from the trie,
// characters begun from mixed states) against the plain check of every
// token of a vocabulary (TokenConstraint::Allows: the token's bytes matched
// by a GrammarMatcher), at every state along an instance: the same allowed
// set, token for token.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include "host/structured/compact_json.h"
#include "host/structured/grammar_matcher.h"
#include "host/structured/json_schema_grammar.h"
#include "host/structured/matcher_states.h"
#include "host/structured/token_constraint.h"
#include "host/structured/token_trie.h"
#include "schema_text.h"
#include "tokenizer_test_support.h"

namespace orcd::structured {
namespace {

// Every token, at every state along `instance` (a JSON value, written
// compactly as the output would be): the mask's answer is the direct one.
void ExpectMasksEqualDirectChecks(const TokenTrie& trie, const std::string& vocab,
                                  const std::string& schema, const std::string& instance) {
  const auto grammar = CompileSchema(schema);
  const std::string text =
      CompactJson(ParseOrdered("[" + instance + "]").extract<Poco::JSON::Array::Ptr>()->get(0));
  const std::vector<TokenId> ids = trie.LongestFirst(text);
  ASSERT_FALSE(ids.empty()) << text;
  TokenConstraint constraint(grammar, trie);
  for (size_t step = 0; step <= ids.size(); ++step) {
    int allowed = 0;
    for (size_t t = 0; t < trie.vocab_size(); ++t) {
      const auto id = static_cast<TokenId>(t);
      const bool direct = constraint.Allows(id);
      ASSERT_EQ(direct, constraint.MaskAllows(id))
          << vocab << ", " << schema << " after " << step << " tokens of " << text << ": token '"
          << trie.piece(id) << "'";
      allowed += direct ? 1 : 0;
    }
    EXPECT_GT(allowed, 0) << schema << " after " << step << " tokens";
    if (step < ids.size()) constraint.Accept(ids[step]);
  }
}

const std::vector<std::pair<std::string, std::string>> kCases = {
    {R"({"type":"string","maxLength":5})", "\"h\u00e9\u4e2dxy\""},
    {R"({"type":"string","minLength":3})", "\"abcd\u00e9f\""},
    {R"({"type":"string","pattern":"^[a-z]{2,4}-\\d+$"})", "\"abc-123\""},
    {R"({"type":"string","pattern":"a+"})", "\"xxaayy\""},
    // 'a' is an exception of the text step: "az" must stay refused.
    {R"({"type":"string","pattern":"^(?:[^a]|ab)*$"})", "\"xaby\""},
    // A character the string must hold somewhere: before it a quote may
    // not end the string, after it one may, also within one token ('="'):
    // the state at a quote that ends a run of text is the one its text
    // reached.
    {R"({"type":"string","pattern":"="})", "\"a=\""},
    // The first step's exception 'a' (then a digit) below a run of text
    // that any other first character opens: "ab" must stay refused.
    {R"({"type":"string","pattern":"^(?:a\\d|[^a]).*$"})", "\"a1xyz\""},
    // Keys: a listed name's first letter is an exception of the key's
    // first step; after a quote or an escape the grammar decides.
    {R"({"properties":{"foo":{"type":"string"},"bar":{}}})", R"({"foo":"f\"o","bar":1,"baz":2})"},
    {R"({"type":"array","items":{"type":"string","format":"date"}})", R"(["2026-11-28"])"},
    // A counted string's steps ahead, a quote allowed only from the fourth
    // character, and an object's strings after it.
    {R"({"type":"object","properties":{"k":{"type":"string","minLength":4,"maxLength":40},)"
     R"("t":{"type":"string"}},"required":["k","t"],"additionalProperties":false})",
     R"({"k":"\u4e2d\u6587 text","t":"a \\ b"})"},
};

// phi-3's SentencePiece vocabulary: 32,000 tokens, few multibyte ones.
TEST(TokenMasks, EqualTheDirectCheckOfEveryTokenOnPhi3) {
  const TokenTrie trie(testing::VocabTokenizerFor("phi-3"));
  for (const auto& [schema, instance] : kCases)
    ExpectMasksEqualDirectChecks(trie, "phi-3", schema, instance);
}

// qwen2's byte-level BPE: 151,936 tokens, thousands beginning with a CJK
// character (each its own text run below the root), many with quotes and
// backslashes after text.
TEST(TokenMasks, EqualTheDirectCheckOfEveryTokenOnQwen2) {
  const TokenTrie trie(testing::VocabTokenizerFor("qwen2"));
  for (const size_t i : {5, 7, 9}) {
    ExpectMasksEqualDirectChecks(trie, "qwen2", kCases[i].first, kCases[i].second);
  }
}

// The state table (matcher_states.h) gives each byte the state the matcher
// itself reaches, also for the bytes it filled from another byte's class.
TEST(MatcherStates, EveryByteLeadsWhereTheMatcherGoes) {
  const auto grammar = CompileSchema(
      R"({"type":"object","properties":{"n":{"type":"integer","minimum":-5,"maximum":300},)"
      R"("s":{"type":"string","pattern":"^[a-f0-9]+$"}}})");
  GrammarMatcher m(grammar);
  MatcherStates states(m);
  MatcherStates::Id at = 0;
  for (const char c : std::string(R"({"n":-3,"s":"0af"})")) {
    for (int b = 255; b >= 0; --b) {  // high bytes first: classes filled from them
      const std::optional<GrammarMatcher> after = m.After(static_cast<uint8_t>(b));
      const MatcherStates::Id next = states.Next(at, static_cast<uint8_t>(b));
      ASSERT_EQ(after.has_value(), next != MatcherStates::kRefused) << "byte " << b;
      if (after) {
        EXPECT_EQ(after->Key(), states.key(next)) << "byte " << b;
      }
    }
    ASSERT_TRUE(m.Accept(static_cast<uint8_t>(c)));
    at = states.Next(at, static_cast<uint8_t>(c));
    ASSERT_EQ(states.key(at), m.Key());
  }
}

// A job whose states outgrow the table (a long counted string: a state a
// character) forgets them between masks and goes on with the same answers.
TEST(TokenMasks, AJobPastItsStateTableKeepsItsAnswers) {
  const TokenTrie trie(testing::VocabTokenizerFor("phi-3"));
  const auto grammar = CompileSchema(R"({"type":"string","maxLength":6000})");
  TokenConstraint constraint(grammar, trie);
  const std::vector<TokenId> quote = trie.LongestFirst("\"");
  ASSERT_EQ(quote.size(), 1u);
  std::vector<TokenId> word;  // a token of four letters
  for (size_t t = 0; t < trie.vocab_size() && word.empty(); ++t) {
    const std::string& piece = trie.piece(static_cast<TokenId>(t));
    if (piece.size() == 4 &&
        std::all_of(piece.begin(), piece.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
      word.push_back(static_cast<TokenId>(t));
    }
  }
  ASSERT_EQ(word.size(), 1u) << "no token of four letters";
  constraint.Accept(quote[0]);
  for (int chars = 0; chars < 5996; chars += 4) {
    if (chars % 1000 == 0 || chars >= 5980) {
      for (size_t t = 0; t < trie.vocab_size(); t += 7) {
        const auto id = static_cast<TokenId>(t);
        ASSERT_EQ(constraint.Allows(id), constraint.MaskAllows(id))
            << "after " << chars << " characters: token '" << trie.piece(id) << "'";
      }
    }
    ASSERT_TRUE(constraint.MaskAllows(word[0])) << chars;
    constraint.Accept(word[0]);
  }
  // 5996 characters: four more fit, five do not.
  EXPECT_TRUE(constraint.MaskAllows(word[0]));
  constraint.Accept(word[0]);
  EXPECT_FALSE(constraint.MaskAllows(word[0])) << "past maxLength";
  EXPECT_TRUE(constraint.MaskAllows(quote[0]));
}

}  // namespace
}  // namespace orcd::structured
