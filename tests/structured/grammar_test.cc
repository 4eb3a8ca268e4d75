// The grammar engine alone: sequences, alternatives, repetition, recursion,
// and the grammars it refuses to run (they would not terminate).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "host/common/status.h"
#include "host/structured/grammar.h"
#include "host/structured/grammar_matcher.h"

namespace orcd::structured {
namespace {

bool Matches(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  GrammarMatcher m(g);
  return m.AcceptBytes(text) && m.CanEnd();
}

// Balanced parentheses around digits: (1), ((2)(3)), 4.
std::shared_ptr<const Grammar> Parens() {
  GrammarBuilder b;
  const uint32_t item = b.Declare();
  const auto inner = b.Star({GrammarBuilder::Ref(item)});
  b.Define(item,
           {{b.Range('0', '9')}, {b.Byte('('), GrammarBuilder::Ref(item), inner, b.Byte(')')}});
  return std::make_shared<const Grammar>(b.Build(item));
}

TEST(Grammar, MatchesNestedRecursionAndRefusesWhatItCannotEnd) {
  const auto g = Parens();
  EXPECT_TRUE(Matches(g, "4"));
  EXPECT_TRUE(Matches(g, "(1)"));
  EXPECT_TRUE(Matches(g, "((2)(3)4)"));
  EXPECT_FALSE(Matches(g, "((2)"));  // a prefix: not a sentence
  GrammarMatcher m(g);
  EXPECT_TRUE(m.AcceptBytes("((2)"));
  EXPECT_FALSE(m.CanEnd());
  EXPECT_TRUE(m.CanContinue());
  EXPECT_FALSE(m.Accept('x')) << "a byte no parse takes";
  EXPECT_TRUE(m.Accept('5')) << "a refused byte changed the state";
  EXPECT_FALSE(m.CanEnd());
  EXPECT_TRUE(m.Accept(')'));
  EXPECT_TRUE(m.CanEnd());
  EXPECT_FALSE(m.CanContinue()) << "a closed item takes nothing more";
  EXPECT_FALSE(m.Accept(')'));
}

TEST(Grammar, LongRepetitionDoesNotGrowTheStacks) {
  GrammarBuilder b;
  const auto digits = b.Star({b.Range('0', '9')});
  const auto g =
      std::make_shared<const Grammar>(b.Build(b.AddRule({{b.Byte('['), digits, b.Byte(']')}})));
  GrammarMatcher m(g);
  ASSERT_TRUE(m.Accept('['));
  const size_t key = m.Key().size();
  for (int i = 0; i < 10000; ++i) ASSERT_TRUE(m.Accept('7'));
  EXPECT_EQ(m.Key().size(), key) << "each repetition left a frame behind";
  EXPECT_TRUE(m.Accept(']'));
  EXPECT_TRUE(m.CanEnd());
}

TEST(Grammar, RepeatBoundsCountExactly) {
  GrammarBuilder b;
  const auto three_to_five = b.Repeat({b.Byte('a')}, 3, 5);
  const auto g = std::make_shared<const Grammar>(b.Build(b.AddRule({{three_to_five}})));
  for (int n = 0; n <= 7; ++n)
    EXPECT_EQ(Matches(g, std::string(static_cast<size_t>(n), 'a')), n >= 3 && n <= 5) << n;
}

TEST(Grammar, LeftRecursionAndRepeatedEmptyMatchesAreRefusedAtBuild) {
  {
    GrammarBuilder b;
    const uint32_t r = b.Declare();
    b.Define(r, {{GrammarBuilder::Ref(r), b.Byte('a')}, {b.Byte('b')}});
    EXPECT_THROW(b.Build(r), Error);
  }
  {
    GrammarBuilder b;
    const auto maybe = b.Optional({b.Byte('a')});
    const auto loop = b.Star({maybe});  // (a?)*: expands forever
    EXPECT_THROW(b.Build(b.AddRule({{loop}})), Error);
  }
}

}  // namespace
}  // namespace orcd::structured
