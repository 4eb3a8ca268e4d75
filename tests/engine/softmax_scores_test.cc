// The CPU attention's softmax (softmax_scores.h): its exponential against
// libm's, its weights against a softmax in double, and the AVX2 and portable
// forms giving the same bits (so a query's weights are the same on every x86
// CPU whatever its vector unit), at lengths around the eight lanes.
#include "host/engine/cpu/softmax_scores.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace orcd::engine::cpu {
namespace {

constexpr int64_t kLengths[] = {1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 500, 1031};

// Cephes' expf is within ~1 ulp; 4 ulps (2.4e-7 relative) leaves room for
// its last rounding without hiding a wrong coefficient (which costs 1e-4 or
// more somewhere in [-87, 0]).
TEST(SoftmaxScores, ScoreExpIsWithinFourUlpsOfLibm) {
  double worst = 0.0;
  for (int i = 0; i <= 200000; ++i) {
    const float x = kMinExpArg * static_cast<float>(i) / 200000.0f;
    const double want = std::exp(static_cast<double>(x));
    const double rel = std::abs(ScoreExp(x) - want) / want;
    worst = std::max(worst, rel);
  }
  EXPECT_LT(worst, 4 * 5.96e-8) << "worst relative error";
  EXPECT_EQ(ScoreExp(0.0f), 1.0f);
  // Far below the range: e^-87's size, never 0 or a NaN.
  EXPECT_EQ(ScoreExp(-1000.0f), ScoreExp(kMinExpArg));
  EXPECT_GT(ScoreExp(-1000.0f), 0.0f);
}

struct Case {
  float scale, softcap;
  bool sink;
};

std::vector<double> SoftmaxInDouble(const std::vector<float>& raw, const Case& c, float sink) {
  std::vector<double> a(raw.size());
  double max = -INFINITY;
  for (size_t j = 0; j < raw.size(); ++j) {
    double v = static_cast<double>(raw[j]) * c.scale;
    if (c.softcap > 0.0f) v = c.softcap * std::tanh(v / c.softcap);
    a[j] = v;
    max = std::max(max, v);
  }
  if (c.sink) max = std::max(max, static_cast<double>(sink));
  double sum = c.sink ? std::exp(sink - max) : 0.0;
  for (double& v : a) sum += (v = std::exp(v - max));
  for (double& v : a) v /= sum;
  return a;
}

TEST(SoftmaxScores, WeightsMatchASoftmaxInDoubleAndBothFormsGiveTheSameBits) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 6.0f);
  const Case cases[] = {
      {0.125f, 0.0f, false}, {0.125f, 0.0f, true}, {0.0884f, 50.0f, false}, {1.0f, 0.0f, true}};
  for (const Case& c : cases) {
    for (int64_t n : kLengths) {
      std::vector<float> raw(static_cast<size_t>(n));
      for (float& v : raw) v = normal(rng);
      const float sink = normal(rng) * c.scale;
      std::vector<float> got = raw, portable = raw;
      SoftmaxScores(got.data(), n, c.scale, c.softcap, c.sink ? &sink : nullptr);
      SoftmaxScoresPortable(portable.data(), n, c.scale, c.softcap, c.sink ? &sink : nullptr);
      EXPECT_EQ(std::memcmp(got.data(), portable.data(), got.size() * sizeof(float)), 0)
          << "n " << n << " scale " << c.scale << " softcap " << c.softcap << " sink " << c.sink;
      // f32 scores, a ~1 ulp exponential and an f32 sum of up to ~1000
      // terms: 1e-5 relative on a weight and 1e-6 absolute keep the bound
      // well under what a lost term or a wrong maximum would cost.
      const std::vector<double> want = SoftmaxInDouble(raw, c, sink);
      double total = 0.0;
      for (int64_t j = 0; j < n; ++j) {
        EXPECT_NEAR(got[j], want[j], 1e-6 + 1e-5 * want[j]) << "n " << n << " j " << j;
        total += got[j];
      }
      // The weights sum to 1, less the sink's share when it has one.
      double want_total = 0.0;
      for (double w : want) want_total += w;
      EXPECT_NEAR(total, want_total, 1e-5) << "n " << n;
    }
  }
}

}  // namespace
}  // namespace orcd::engine::cpu
