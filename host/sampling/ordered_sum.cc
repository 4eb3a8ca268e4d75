#include "host/sampling/ordered_sum.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace orcd::sampling {
namespace {

// Sums that wrap instead of overflowing (FinishSum refuses them by q_sum).
void WrapAdd(int64_t& sum, int64_t v) {
  sum = static_cast<int64_t>(static_cast<uint64_t>(sum) + static_cast<uint64_t>(v));
}

}  // namespace

void GridSums::Add(double q) {
  q_sum += q;
  // The u grid rounds q to nearest, ties to even: ceil(q - 1/2) and
  // floor(q + 1/2) are that rounding, except at a tie (q = n + 1/2), where
  // they are n and n + 1, the two ways the running sum's parity can take it.
  const double l1 = std::ceil(q - 0.5), h1 = std::floor(q + 0.5);
  WrapAdd(lo1, static_cast<int64_t>(l1));
  WrapAdd(hi1, static_cast<int64_t>(h1));
  if (!two_grids) return;
  // The 2u grid, the same in steps of two.
  const double l2 = 2.0 * std::ceil(q * 0.5 - 0.5), h2 = 2.0 * std::floor(q * 0.5 + 0.5);
  WrapAdd(lo2, static_cast<int64_t>(std::min(l1, l2)));
  WrapAdd(hi2, static_cast<int64_t>(std::max(h1, h2)));
}

void GridSums::Merge(const GridSums& other) {
  WrapAdd(lo1, other.lo1);
  WrapAdd(hi1, other.hi1);
  WrapAdd(lo2, other.lo2);
  WrapAdd(hi2, other.hi2);
  q_sum += other.q_sum;
}

double UlpOf(double x) {
  int exponent = 0;
  std::frexp(x, &exponent);  // x = m * 2^exponent, m in [0.5, 1)
  return std::ldexp(1.0, exponent - 53);
}

std::optional<SumBounds> FinishSum(double start, const GridSums& tail) {
  // Two binades hold fewer than 2^54 steps of u: more is refused anyway, and
  // this keeps the int64 sums far from overflow.
  if (!(tail.q_sum < 0x1p56)) return std::nullopt;
  const double u = UlpOf(start);
  constexpr int64_t kBinade = int64_t{1} << 53;       // steps of u from 2^E to 2^(E+1)
  const auto base = static_cast<int64_t>(start / u);  // exact: start is a multiple of u
  if (base + tail.hi1 < kBinade) {
    // Every partial sum stays below 2^(E+1): every step rounded on the u grid.
    return SumBounds{static_cast<double>(base + tail.lo1) * u,
                     static_cast<double>(base + tail.hi1) * u};
  }
  if (tail.two_grids && base + tail.hi2 + 2 < 2 * kBinade) {
    // One crossing: the step that crosses is within 1.5u of both grids.
    int64_t lo = std::max(base, base + tail.lo2 - 2);
    int64_t hi = base + tail.hi2 + 2;
    // Above 2^(E+1) only even counts of u are doubles: round outwards.
    if (lo >= kBinade) lo &= ~int64_t{1};
    if (hi >= kBinade) hi += hi & 1;
    return SumBounds{static_cast<double>(lo) * u, static_cast<double>(hi) * u};
  }
  return std::nullopt;
}

std::optional<SumBounds> BandedSum(double start, std::span<const float> values, double approx) {
  // An upper bound on the sum fixes the last binade it can reach, E, and
  // u = 2^(E - 52). Floats >= 2^(E - 29) are multiples of u: with a start
  // that is one too, every partial sum of them is a double (a multiple of u
  // below 2^(E+1)), so they add exactly in any order. They come first in
  // rank order; the rest are below 2^-28 of the sum each and cross at most
  // one power of two from there.
  const double upper = approx * (1.0 + 0x1p-30);
  const double u = UlpOf(upper);
  const double big_floor = u * 0x1p23;
  if (std::fmod(start, u) != 0.0) return std::nullopt;
  double big[4] = {};  // exact in any order: independent lanes are fine
  GridSums rest_u{.two_grids = true}, rest_half_u{.two_grids = true};  // the small ones
  const double inv_u = 1.0 / u;
  for (size_t i = 0; i < values.size(); ++i) {
    const double x = values[i];
    if (x >= big_floor) {
      big[i % 4] += x;
    } else if (x > 0.0) {
      rest_u.Add(x * inv_u);
      rest_half_u.Add(2.0 * x * inv_u);
    }
  }
  const double middle = start + ((big[0] + big[1]) + (big[2] + big[3]));
  if (!(middle < u * 0x1p53)) return std::nullopt;  // below 2^(E+1)
  const double middle_u = UlpOf(middle);
  if (middle_u == u) return FinishSum(middle, rest_u);
  if (middle_u == u / 2) return FinishSum(middle, rest_half_u);
  return std::nullopt;
}

SumBounds LooseSum(double start, double lo_sum, double hi_sum, int64_t count) {
  const double n = static_cast<double>(count);
  const double gamma = (n + 16.0) * 0x1p-53 * 1.01;  // the given sums' own rounding
  // >= every partial sum; the factors also cover these few operations' roundings.
  const double upper = (start + hi_sum * (1.0 + gamma)) * (1.0 + 0x1p-40);
  const double slack = n * 0.5 * UlpOf(upper);
  return SumBounds{(start + lo_sum * (1.0 - gamma) - slack) * (1.0 - 0x1p-50),
                   (start + hi_sum * (1.0 + gamma) + slack) * (1.0 + 0x1p-50)};
}

}  // namespace orcd::sampling
