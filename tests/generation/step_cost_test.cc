// The scheduler's step cost model (step_cost.h): what it learns from measured
// steps decides how much of a newcomer's prompt a step beside generating
// jobs may take, so its arithmetic is pinned here on made-up times.
#include "host/generation/step_cost.h"

#include <gtest/gtest.h>

namespace orcd {
namespace {

TEST(StepCost, NothingIsKnownUntilAPromptStepIsMeasured) {
  StepCostModel m;
  EXPECT_FALSE(m.PromptTokensWithin(0.5, 4).has_value());
  m.Observe(0, 4, 0.1);  // a decode step teaches the decode cost only
  EXPECT_FALSE(m.PromptTokensWithin(0.5, 4).has_value());
  m.Observe(4, 0, 0.1);  // too few prompt tokens to price one
  EXPECT_FALSE(m.PromptTokensWithin(0.5, 4).has_value());
  m.Observe(100, 0, 1.0);  // 10 ms a prompt token
  ASSERT_TRUE(m.PromptTokensWithin(0.5, 4).has_value());
  // 0.5 s less the 4-token decode step's 0.1 s, at 10 ms a token.
  EXPECT_EQ(*m.PromptTokensWithin(0.5, 4), 40);
  EXPECT_EQ(*m.PromptTokensWithin(0.5, 0), 50);
}

TEST(StepCost, AMixedStepPricesItsPromptTokensAfterItsDecodeTokens) {
  StepCostModel m;
  m.Observe(0, 8, 0.2);
  m.Observe(50, 8, 0.7);  // 0.5 s for 50 prompt tokens beside 8 decode tokens
  EXPECT_EQ(*m.PromptTokensWithin(1.2, 8), 100);
  // The decode tokens alone take longer than the target: no room.
  EXPECT_EQ(*m.PromptTokensWithin(0.15, 8), 0);
}

TEST(StepCost, AnUnmeasuredDecodeCountIsScaledFromASmallerOne) {
  StepCostModel m;
  m.Observe(0, 2, 0.1);
  EXPECT_DOUBLE_EQ(m.DecodeSeconds(2), 0.1);
  EXPECT_DOUBLE_EQ(m.DecodeSeconds(6), 0.3) << "at most 3 times a 2-token step";
  EXPECT_DOUBLE_EQ(m.DecodeSeconds(1), 0.1) << "no smaller count: the larger one's time";
  EXPECT_DOUBLE_EQ(m.DecodeSeconds(0), 0);
  m.Observe(0, 4, 0.15);
  EXPECT_DOUBLE_EQ(m.DecodeSeconds(6), 0.15 * 6 / 4) << "the nearest smaller count";
  EXPECT_DOUBLE_EQ(m.DecodeSeconds(3), 0.1 * 3 / 2);
}

TEST(StepCost, AveragesFollowAChangeAndShrugOffOneOutlier) {
  StepCostModel m;
  m.Observe(0, 1, 0.02);
  m.Observe(0, 1, 0.40);  // one slow step (another process took the core)
  EXPECT_LT(m.DecodeSeconds(1), 0.2);
  for (int i = 0; i < 20; ++i) m.Observe(0, 1, 0.04);  // the steps got slower for good
  EXPECT_NEAR(m.DecodeSeconds(1), 0.04, 0.001);
}

TEST(StepCost, NonsenseTimesAreIgnored) {
  StepCostModel m;
  m.Observe(100, 0, 0.0);
  m.Observe(100, 0, -1.0);
  m.Observe(-5, 2, 1.0);
  EXPECT_FALSE(m.PromptTokensWithin(1.0, 0).has_value());
  EXPECT_DOUBLE_EQ(m.DecodeSeconds(2), 0);
}

}  // namespace
}  // namespace orcd
