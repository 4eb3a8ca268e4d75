// The pieces of the O(vocabulary) sampler: bounds on ordered sums (grid,
// banded, loose) hold the ordered sum, the vector kernels equal the portable ones, the rank order
// and the top selection equal a sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "host/sampling/ordered_sum.h"
#include "host/sampling/rank_order.h"
#include "host/sampling/sampler_kernels.h"
#include "host/sampling/sampler_simd.h"

namespace orcd::sampling {
namespace {

// Descending floats shaped like softmax terms: 1 first, then a spread of
// exponentials, some repeated, some exact halves (ties on the grid).
std::vector<float> DescendingTerms(std::mt19937_64& rng, size_t n, float spread) {
  std::exponential_distribution<float> gap(1.0f);
  std::vector<float> v(n);
  v[0] = 1.0f;
  for (size_t i = 1; i < n; ++i) {
    const float d = -spread * gap(rng);
    v[i] = rng() % 7 == 0 ? std::ldexp(1.0f, static_cast<int>(d)) : std::exp(d);
    if (rng() % 5 == 0) v[i] = v[i - 1];
  }
  std::sort(v.begin(), v.end(), std::greater<>());
  return v;
}

TEST(OrderedSum, BoundsHoldTheOrderedSum) {
  std::mt19937_64 rng(1);
  int decided = 0, crossed = 0, decided_banded = 0, undecided = 0, skipped = 0;
  for (int round = 0; round < 4000; ++round) {
    const size_t n = 2 + rng() % 3000;
    const float spread = std::ldexp(1.0f, static_cast<int>(rng() % 7) - 2);  // 0.25 .. 16
    std::vector<float> v = DescendingTerms(rng, n, spread);
    if (round % 3 == 0) {
      // The whole sum near a power of two: scale the terms.
      double s = 0;
      for (float x : v) s += x;
      const float k = static_cast<float>(std::exp2(std::ceil(std::log2(s))) / s);
      for (float& x : v) x *= k * (1.0f + 1e-6f * static_cast<float>(rng() % 3));
      std::sort(v.begin(), v.end(), std::greater<>());
    }
    const size_t head = 1 + rng() % std::min<size_t>(n - 1, 80);
    double ordered = 0;
    for (float x : v) ordered += x;
    double start = 0;
    for (size_t i = 0; i < head; ++i) start += v[i];
    const double inv_u = 1.0 / UlpOf(start);
    if (!(v[head] * inv_u < kMaxGridStep)) {
      ++skipped;
      continue;
    }
    std::vector<float> tail(v.begin() + static_cast<std::ptrdiff_t>(head), v.end());
    std::shuffle(tail.begin(), tail.end(), rng);
    GridSums grid{.two_grids = true};
    for (float x : tail) grid.Add(x * inv_u);
    const std::optional<SumBounds> b = FinishSum(start, grid);
    if (b) {
      ++decided;
      crossed += grid.hi1 + static_cast<int64_t>(start * inv_u) >= (int64_t{1} << 53);
      EXPECT_LE(b->lo, ordered) << round;
      EXPECT_GE(b->hi, ordered) << round;
    }
    const std::optional<SumBounds> banded = BandedSum(start, tail, start + grid.q_sum / inv_u);
    if (banded) {
      ++decided_banded;
      EXPECT_LE(banded->lo, ordered) << round;
      EXPECT_GE(banded->hi, ordered) << round;
    }
    undecided += !b && !banded;
    double shuffled = 0;
    for (float x : tail) shuffled += x;
    const SumBounds loose = LooseSum(start, shuffled, shuffled, static_cast<int64_t>(tail.size()));
    EXPECT_LE(loose.lo, ordered) << round;
    EXPECT_GE(loose.hi, ordered) << round;
  }
  EXPECT_GT(decided, 400);
  EXPECT_GT(crossed, 50);
  EXPECT_GT(decided_banded, 1500);
  EXPECT_LT(undecided, 400) << decided << " " << decided_banded << " " << skipped;
}

TEST(OrderedSum, GridAddRoundsLikeTheHardware) {
  // One step from a start that is a multiple of u: the u-grid bounds hold
  // start + x rounded.
  std::mt19937_64 rng(2);
  for (int round = 0; round < 100000; ++round) {
    const double start = 1.0 + static_cast<double>(rng() % (int64_t{1} << 52)) * 0x1p-52;
    const auto x = static_cast<float>(std::ldexp(static_cast<double>(rng() % 4096), -64));
    GridSums g{.two_grids = true};
    g.Add(x * 0x1p52);
    const double sum = start + x;
    if (sum >= 2.0) continue;
    EXPECT_LE(start + static_cast<double>(g.lo1) * 0x1p-52, sum);
    EXPECT_GE(start + static_cast<double>(g.hi1) * 0x1p-52, sum);
  }
}

void ExpectSameGrids(const GridSums& x, const GridSums& y) {
  EXPECT_EQ(x.two_grids, y.two_grids);
  EXPECT_EQ(x.lo1, y.lo1);
  EXPECT_EQ(x.hi1, y.hi1);
  EXPECT_EQ(x.lo2, y.lo2);
  EXPECT_EQ(x.hi2, y.hi2);
  EXPECT_NEAR(x.q_sum, y.q_sum, 1e-9 * y.q_sum + 40000.0);  // within 1 per value
}

void ExpectSameProbSums(const ProbSums& x, const ProbSums& y) {
  EXPECT_EQ(x.count, y.count);
  EXPECT_NEAR(x.lo, y.lo, 1e-12 * y.lo);
  EXPECT_NEAR(x.hi, y.hi, 1e-12 * y.hi);
}

// Each kernel set the CPU has, and the dispatched one, against the portable
// kernels: exp bit for bit, the grid sums exactly, the loose sums within
// their rounding.
TEST(SamplerKernels, VectorEqualsPortable) {
#if defined(__x86_64__)
  const bool have_avx2 = avx2::Usable(), have_avx512 = avx512::Usable();
#else
  const bool have_avx2 = false, have_avx512 = false;
#endif
  if (!have_avx2) GTEST_SKIP() << "no AVX2+FMA here, or libm's expf differs";
  std::mt19937_64 rng(3);
  std::normal_distribution<float> normal(0.0f, 6.0f);
  for (size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{1000}, size_t{40001}}) {
    std::vector<float> values(n);
    for (float& x : values) x = normal(rng);
    const float max = *std::max_element(values.begin(), values.end());
    const float below = n > 8 ? values[n / 3] : max + 1.0f;
    // q below kMaxGridStep: e <= 1 and p <= 0.4 times 2^46.
    std::vector<float> e_port(n), e_vec(n);
    const GridSums want = ExpTailPortable(values, below, max, 0x1p46, e_port.data());
    ExpectSameGrids(ExpTail(values, below, max, 0x1p46, e_vec.data()), want);
    EXPECT_EQ(e_vec, e_port) << n;
#if defined(__x86_64__)
    ExpectSameGrids(avx2::ExpTail(values, below, max, 0x1p46, e_vec.data()), want);
    EXPECT_EQ(e_vec, e_port) << n;
    if (have_avx512) {
      ExpectSameGrids(avx512::ExpTail(values, below, max, 0x1p46, e_vec.data()), want);
      EXPECT_EQ(e_vec, e_port) << n;
    }
#endif
    ExpectSameGrids(GridTail(e_port, 0x1p46), GridTailPortable(e_port, 0x1p46));
    for (const Range range : {kEverything, Range{max - 9.0f, max - 2.0f}}) {
      for (double floor : {0.0, 1e-9}) {
        for (double hi : {2.5, 2.5000000001}) {
          const ProbSums d = ProbTailPortable(e_port, values, range, 2.5, hi, floor);
          ExpectSameProbSums(ProbTailSums(e_port, values, range, 2.5, hi, floor), d);
#if defined(__x86_64__)
          ExpectSameProbSums(avx2::ProbTail(e_port, values, range, 2.5, hi, floor), d);
          if (have_avx512)
            ExpectSameProbSums(avx512::ProbTail(e_port, values, range, 2.5, hi, floor), d);
#endif
        }
      }
      const RangeMass m = MassIn(e_port, values, range);
      const RangeMass m_port = MassInPortable(e_port, values, range);
      EXPECT_EQ(m.count, m_port.count);
      EXPECT_NEAR(m.e_sum, m_port.e_sum, 1e-12 * m_port.e_sum);
      std::vector<int32_t> ids, collected;
      CollectIn(values, range, ids);
      for (size_t i = 0; i < n; ++i)
        if (values[i] >= range.lo && values[i] < range.hi)
          collected.push_back(static_cast<int32_t>(i));
      EXPECT_EQ(ids, collected);
    }
    EXPECT_EQ(MaxOf(values), max);
    std::vector<float> scaled_port(n), scaled_vec(n);
    const float scaled_max = ScalePortable(values, 0.7f, scaled_port.data());
    EXPECT_EQ(ScaleInto(values, 0.7f, scaled_vec.data()), scaled_max);
    EXPECT_EQ(scaled_vec, scaled_port);
#if defined(__x86_64__)
    EXPECT_EQ(avx2::Scale(values, 0.7f, scaled_vec.data()), scaled_max);
    EXPECT_EQ(scaled_vec, scaled_port);
#endif
  }
}

TEST(RankOrder, EqualsASortByValueThenId) {
  std::mt19937_64 rng(4);
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{100}, size_t{70000}}) {
    std::vector<float> values(n);
    for (float& x : values) x = static_cast<float>(static_cast<int>(rng() % 61) - 30) * 0.25f;
    if (n > 2) {
      values[1] = -0.0f;
      values[2] = -std::numeric_limits<float>::infinity();
    }
    std::vector<Candidate> want;
    for (size_t i = 0; i < n; ++i) want.emplace_back(values[i], static_cast<int32_t>(i));
    std::sort(want.begin(), want.end(), RankBefore);
    std::vector<Candidate> got;
    std::vector<uint64_t> scratch;
    RankOrder(values, got, scratch);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(got[i].second, want[i].second) << i;
  }
}

TEST(RankOrder, SelectTopTakesEveryValueAtOrAboveItsThreshold) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 200; ++round) {
    const size_t n = 1 + rng() % 20000;
    const size_t target = 1 + rng() % 600;
    std::vector<float> values(n);
    const int levels = round % 2 ? 50 : 1 << 20;  // many ties, or few
    for (float& x : values) x = static_cast<float>(static_cast<int>(rng() % levels));
    std::vector<int32_t> ids;
    const std::optional<float> threshold = SelectTop(values, target, n, ids);
    ASSERT_TRUE(threshold);
    size_t above = 0;
    for (float x : values) above += x >= *threshold;
    EXPECT_EQ(ids.size(), above);
    EXPECT_GE(ids.size(), std::min(target, n));
    for (int32_t id : ids) EXPECT_GE(values[static_cast<size_t>(id)], *threshold);
    if (n > target) {
      // The threshold is the target-th largest value.
      std::vector<float> sorted = values;
      std::sort(sorted.begin(), sorted.end(), std::greater<>());
      EXPECT_EQ(*threshold, sorted[target - 1]);
    }
  }
}

}  // namespace
}  // namespace orcd::sampling
