// Exact bounds on a sum the sampler's specification computes one value at a
// time, in rank order, into a double, without putting the values in that
// order. The sampler sums the few largest values itself, in order (`start`),
// and hands every smaller value, in any order, to a GridSums; FinishSum then
// bounds the double the ordered sum would end at. Usually the bounds are a
// handful of ulps apart: the sampler goes on only where its decisions come
// out the same for every double between them.
//
// Why order-free bounds exist: a running double sum S in [2^E, 2^(E+1)) is a
// multiple of u = ulp(S), so S + x rounds to S + u * round(x / u), ties to an
// even multiple of u. That depends only on x, except at a tie (x / u = n + 1/2)
// where it is n or n + 1 by S's parity, and except where S crosses 2^(E+1):
// from there it rounds on the 2u grid, and the crossing step itself is off
// either grid by at most 1.5u. Summing each value's lowest and highest
// contribution on both grids bounds the result wherever it crosses (at most
// once: FinishSum refuses sums that may cross twice).
#ifndef ORCD_HOST_SAMPLING_ORDERED_SUM_H_
#define ORCD_HOST_SAMPLING_ORDERED_SUM_H_

#include <cstdint>
#include <optional>
#include <span>

namespace orcd::sampling {

// The largest q a GridSums takes: q +- 1/2 is exact, and 32 of them sum
// exactly in a double (the vector kernels' lanes). A tail value at most
// 1/64 of the ordered sum before it is below this.
inline constexpr double kMaxGridStep = 0x1p47;

// Per value x, with q = x / u: what adding x contributes, in units of u.
// The 2u grid costs as much again: a first pass keeps only the u grid and a
// second one, where the sum may cross a power of two, both.
struct GridSums {
  bool two_grids = false;
  int64_t lo1 = 0, hi1 = 0;  // every addition on the u grid
  int64_t lo2 = 0, hi2 = 0;  // each addition on the u or the 2u grid (two_grids)
  double q_sum = 0;          // the sum of q within one per value: rules out int64 wrap

  // 0 <= q < kMaxGridStep (callers check their largest value).
  void Add(double q);
  void Merge(const GridSums& other);
};

struct SumBounds {
  double lo = 0;
  double hi = 0;
};

// ulp(x) for a positive normal double: 2^(exponent - 52).
double UlpOf(double x);

// Bounds on the double that adding the values of `tail` one by one to `start`
// (> 0, normal) gives, for u = UlpOf(start), whatever their order; nullopt
// when the sum may cross a power of two and `tail` has one grid, or two.
std::optional<SumBounds> FinishSum(double start, const GridSums& tail);

// The same for values whose sum may cross many powers of two (a flat
// distribution), in one more pass over them: the values >= 2^-29 of the sum
// add exactly, the rest are bounded as above. `values` are the tail (0 = not
// in it), `approx` about start plus their sum. nullopt: the exact path.
std::optional<SumBounds> BandedSum(double start, std::span<const float> values, double approx);

// Bounds on the double that adding `count` values one by one to `start` gives,
// in any order, from their sum taken in another order (lo_sum <= hi_sum, each
// within (count + 16) * 2^-53 of its exact value): every addition rounds by
// at most half an ulp of the largest partial sum. Wider than FinishSum's by
// about count ulps, but one cheap pass, wherever the sum crosses.
SumBounds LooseSum(double start, double lo_sum, double hi_sum, int64_t count);

}  // namespace orcd::sampling

#endif  // ORCD_HOST_SAMPLING_ORDERED_SUM_H_
