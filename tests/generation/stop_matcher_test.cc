// Stop strings across token boundaries; the stop text is never emitted.
#include "host/generation/stop_matcher.h"

#include <gtest/gtest.h>

namespace orcd {
namespace {

std::string Feed(StopMatcher& m, const std::vector<std::string>& pieces) {
  std::string out;
  for (const auto& p : pieces) out += m.Push(p);
  return out + m.Flush();
}

TEST(StopMatcher, MatchesAcrossTokenBoundaries) {
  StopMatcher m({"END"});
  EXPECT_EQ(m.Push("hello E"), "hello ");  // "E" could start END: held back
  EXPECT_EQ(m.Push("N"), "");
  EXPECT_EQ(m.Push("Dtrailing"), "");
  EXPECT_TRUE(m.stopped());
  EXPECT_EQ(m.Flush(), "");
}

TEST(StopMatcher, ReleasesHeldTextThatTurnsOutHarmless) {
  StopMatcher m({"END"});
  EXPECT_EQ(Feed(m, {"a E", "Nx", " done"}), "a ENx done");
  EXPECT_FALSE(m.stopped());
}

TEST(StopMatcher, EarliestOfSeveralStopsWins) {
  StopMatcher m({"\n\n", "bar"});
  EXPECT_EQ(Feed(m, {"foo b", "ar\n", "\n"}), "foo ");
  EXPECT_TRUE(m.stopped());
}

TEST(StopMatcher, NoStopsPassesEverythingThrough) {
  StopMatcher m({});
  EXPECT_EQ(m.Push("abc"), "abc");
  EXPECT_EQ(m.Flush(), "");
}

TEST(StopMatcher, MultibyteStopString) {
  StopMatcher m({"\xe4\xb8\x96\xe7\x95\x8c"});  // 世界
  EXPECT_EQ(Feed(m, {"\xe4\xbd\xa0\xe5\xa5\xbd", "\xe4\xb8\x96", "\xe7\x95\x8c!"}),
            "\xe4\xbd\xa0\xe5\xa5\xbd");
}

}  // namespace
}  // namespace orcd
