// Logprobs and OpenAI's logit adjustments, against direct computations.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "host/sampling/logit_adjustments.h"
#include "host/sampling/sampler.h"
#include "host/sampling/token_logprobs.h"

namespace orcd {
namespace {

// log-softmax in long double, the reference.
std::vector<double> LogSoftmax(const std::vector<float>& logits) {
  long double max = logits[0], sum = 0;
  for (float l : logits) max = std::max<long double>(max, l);
  for (float l : logits) sum += std::exp(static_cast<long double>(l) - max);
  std::vector<double> out;
  for (float l : logits) out.push_back(static_cast<double>(l - max - std::log(sum)));
  return out;
}

TEST(TokenLogprobs, MatchTheLogSoftmaxAndRankTheTopWithTiesToTheLowerId) {
  const std::vector<float> logits = {1.5f, -2.0f, 3.25f, 3.25f, 0.0f, -30.0f, 2.0f};
  const std::vector<double> ref = LogSoftmax(logits);
  const TokenLogprobs lp = ComputeLogprobs(logits, 4, 4);
  EXPECT_EQ(lp.chosen.id, 4);
  // float logprobs: within a float's rounding of the value.
  EXPECT_NEAR(lp.chosen.logprob, ref[4], 1e-6);
  ASSERT_EQ(lp.top.size(), 4u);
  const int expected[] = {2, 3, 6, 0};  // 3.25 (id 2 before 3), 2.0, 1.5
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(lp.top[k].id, expected[k]) << k;
    EXPECT_NEAR(lp.top[k].logprob, ref[expected[k]], 1e-6);
  }
  double total = 0;
  for (double r : ref) total += std::exp(r);
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_TRUE(ComputeLogprobs(logits, 0, 0).top.empty());
  EXPECT_EQ(ComputeLogprobs(logits, 0, 99).top.size(), logits.size()) << "clamped to 20";
}

TEST(TokenLogprobs, AHugeVocabularyKeepsItsPrecision) {
  std::vector<float> logits(200000, -5.0f);
  logits[123456] = 12.0f;
  const TokenLogprobs lp = ComputeLogprobs(logits, 123456, 1);
  const double expected = -std::log(1.0 + 199999.0 * std::exp(-17.0));
  EXPECT_NEAR(lp.chosen.logprob, expected, 1e-6);
  EXPECT_EQ(lp.top[0].id, 123456);
}

TEST(LogitAdjustments, BiasAndPenaltiesAreOpenAisAdditiveForm) {
  LogitAdjustmentConfig c;
  c.presence_penalty = 0.5;
  c.frequency_penalty = 0.25;
  c.logit_bias = {{1, 2.0f}, {7, -100.0f}};  // id 7 is outside a 4-token vocabulary
  LogitAdjuster a(c);
  const std::vector<float> logits = {1.0f, 1.0f, 1.0f, 1.0f};
  std::vector<float> out(a.Apply(logits).begin(), a.Apply(logits).end());
  EXPECT_EQ(out, (std::vector<float>{1.0f, 3.0f, 1.0f, 1.0f}));
  a.Record(2);
  a.Record(2);
  a.Record(0);
  const std::span<const float> adjusted = a.Apply(logits);
  EXPECT_FLOAT_EQ(adjusted[0], 1.0f - 0.5f - 0.25f);
  EXPECT_FLOAT_EQ(adjusted[2], 1.0f - 0.5f - 0.5f);
  EXPECT_FLOAT_EQ(adjusted[1], 3.0f);
  EXPECT_EQ(logits[2], 1.0f) << "the model's logits are left as they are";
  a.Reset();
  EXPECT_FLOAT_EQ(a.Apply(logits)[2], 1.0f);
}

// Greedy under a frequency penalty: each repeat lowers a token by 1, so the
// two leaders alternate once the first has been used.
TEST(LogitAdjustments, TheSamplerAppliesThemBeforeItsOwnSteps) {
  SamplerConfig config;
  config.temperature = 0;
  config.adjustments.frequency_penalty = 1.0;
  Sampler sampler(config);
  const std::vector<float> logits = {5.0f, 4.5f, 0.0f};
  std::vector<int32_t> picks;
  for (int k = 0; k < 4; ++k) picks.push_back(sampler.Sample(logits));
  EXPECT_EQ(picks, (std::vector<int32_t>{0, 1, 0, 1}));
  config.adjustments = {};
  config.adjustments.logit_bias = {{2, 100.0f}};
  config.temperature = 0.8;
  Sampler biased(config);
  for (int k = 0; k < 20; ++k) EXPECT_EQ(biased.Sample(logits), 2);
}

}  // namespace
}  // namespace orcd
