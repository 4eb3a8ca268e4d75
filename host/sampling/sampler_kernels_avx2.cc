// The sampler's AVX2 + FMA kernels (see sampler_simd.h).
#if defined(__x86_64__)
#include <immintrin.h>

#include <bit>
#include <cmath>
#include <limits>

#include "host/sampling/sampler_simd.h"

namespace orcd::sampling::avx2 {
namespace {
#define ORCD_AVX2 __attribute__((target("avx2,fma")))

// exp of four floats in [-87, 0] (given as doubles), rounded to float.
ORCD_AVX2 inline __m128 Exp4(__m256d xd) {
  const __m256d kd_shifted =
      _mm256_fmadd_pd(_mm256_set1_pd(kInvLn2x32), xd, _mm256_set1_pd(kShift));
  const __m256i ki = _mm256_castpd_si256(kd_shifted);
  const __m256d kd = _mm256_sub_pd(kd_shifted, _mm256_set1_pd(kShift));
  const __m256d r = _mm256_fmsub_pd(_mm256_set1_pd(kInvLn2x32), xd, kd);
  const __m256i index = _mm256_and_si256(ki, _mm256_set1_epi64x(31));
  __m256i t = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(kExp2Table), index, 8);
  t = _mm256_add_epi64(t, _mm256_slli_epi64(ki, 47));
  const __m256d z = _mm256_fmadd_pd(_mm256_set1_pd(kPoly0), r, _mm256_set1_pd(kPoly1));
  const __m256d r2 = _mm256_mul_pd(r, r);
  __m256d y = _mm256_fmadd_pd(_mm256_set1_pd(kPoly2), r, _mm256_set1_pd(1.0));
  y = _mm256_fmadd_pd(z, r2, y);
  y = _mm256_mul_pd(y, _mm256_castsi256_pd(t));
  return _mm256_cvtpd_ps(y);
}

ORCD_AVX2 inline __m256 Exp8(__m256 x) {
  const __m128 lo = Exp4(_mm256_cvtps_pd(_mm256_castps256_ps128(x)));
  const __m128 hi = Exp4(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
  return _mm256_set_m128(hi, lo);
}

// GridSums::Add on four q at once: double lanes, exact for 32 steps of
// q < kMaxGridStep (sums below 2^52), then flushed into int64 lanes.
struct GridLanes {
  __m256d lo1, hi1, lo2, hi2;  // this block's
  __m256i lo1_total, hi1_total, lo2_total, hi2_total;
  __m256d q_sum;  // hi1's block sums
  int steps;
};

ORCD_AVX2 inline GridLanes ZeroLanes() {
  const __m256d zero = _mm256_setzero_pd();
  const __m256i izero = _mm256_setzero_si256();
  return {zero, zero, zero, zero, izero, izero, izero, izero, zero, 0};
}

// An integer-valued double in [0, 2^52) as an int64.
ORCD_AVX2 inline __m256i ToInt64(__m256d v) {
  const __m256d magic = _mm256_set1_pd(0x1p52);
  return _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(v, magic)), _mm256_castpd_si256(magic));
}

template <bool kTwoGrids>
ORCD_AVX2 inline void Flush(GridLanes& g) {
  g.lo1_total = _mm256_add_epi64(g.lo1_total, ToInt64(g.lo1));
  g.hi1_total = _mm256_add_epi64(g.hi1_total, ToInt64(g.hi1));
  g.q_sum = _mm256_add_pd(g.q_sum, g.hi1);
  g.lo1 = g.hi1 = _mm256_setzero_pd();
  if (kTwoGrids) {
    g.lo2_total = _mm256_add_epi64(g.lo2_total, ToInt64(g.lo2));
    g.hi2_total = _mm256_add_epi64(g.hi2_total, ToInt64(g.hi2));
    g.lo2 = g.hi2 = _mm256_setzero_pd();
  }
  g.steps = 0;
}

template <bool kTwoGrids>
ORCD_AVX2 inline void GridAdd(GridLanes& g, __m256d q) {
  constexpr int kCeil = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
  constexpr int kFloor = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
  const __m256d half = _mm256_set1_pd(0.5);
  const __m256d l1 = _mm256_round_pd(_mm256_sub_pd(q, half), kCeil);
  const __m256d h1 = _mm256_round_pd(_mm256_add_pd(q, half), kFloor);
  g.lo1 = _mm256_add_pd(g.lo1, l1);
  g.hi1 = _mm256_add_pd(g.hi1, h1);
  if (kTwoGrids) {
    const __m256d half_q = _mm256_mul_pd(q, half);
    __m256d l2 = _mm256_round_pd(_mm256_sub_pd(half_q, half), kCeil);
    __m256d h2 = _mm256_round_pd(_mm256_add_pd(half_q, half), kFloor);
    l2 = _mm256_add_pd(l2, l2);
    h2 = _mm256_add_pd(h2, h2);
    g.lo2 = _mm256_add_pd(g.lo2, _mm256_min_pd(l1, l2));
    g.hi2 = _mm256_add_pd(g.hi2, _mm256_max_pd(h1, h2));
  }
  if (++g.steps == 32) Flush<kTwoGrids>(g);
}

template <bool kTwoGrids>
ORCD_AVX2 inline GridSums Reduce(GridLanes g) {
  Flush<kTwoGrids>(g);
  alignas(32) int64_t lanes[4][4];
  alignas(32) double q[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[0]), g.lo1_total);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[1]), g.hi1_total);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[2]), g.lo2_total);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes[3]), g.hi2_total);
  _mm256_store_pd(q, g.q_sum);
  GridSums out{.two_grids = kTwoGrids};
  for (int k = 0; k < 4; ++k) {
    out.Merge(GridSums{.two_grids = kTwoGrids,
                       .lo1 = lanes[0][k],
                       .hi1 = lanes[1][k],
                       .lo2 = lanes[2][k],
                       .hi2 = lanes[3][k],
                       .q_sum = q[k]});
  }
  return out;
}

ORCD_AVX2 inline __m256 InRange(__m256 v, Range range) {
  return _mm256_and_ps(_mm256_cmp_ps(v, _mm256_set1_ps(range.lo), _CMP_GE_OQ),
                       _mm256_cmp_ps(v, _mm256_set1_ps(range.hi), _CMP_LT_OQ));
}

ORCD_AVX2 void Exp8Array(const float* x, float* y) {
  _mm256_storeu_ps(y, Exp8(_mm256_loadu_ps(x)));
}

}  // namespace

ORCD_AVX2 float Scale(std::span<const float> logits, float inv_t, float* out) {
  const __m256 t = _mm256_set1_ps(inv_t);
  __m256 max = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  __m256 nan = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 <= logits.size(); i += 8) {
    const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(logits.data() + i), t);
    _mm256_storeu_ps(out + i, v);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    max = _mm256_max_ps(max, v);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, max);
  float result = ScalePortable(logits.subspan(i), inv_t, out + i);
  for (float v : lanes) result = v > result ? v : result;
  if (!_mm256_testz_ps(nan, nan)) return std::numeric_limits<float>::quiet_NaN();
  return result;
}

ORCD_AVX2 float Max(std::span<const float> values) {
  __m256 max = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  __m256 nan = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 <= values.size(); i += 8) {
    const __m256 v = _mm256_loadu_ps(values.data() + i);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    max = _mm256_max_ps(max, v);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, max);
  float out = MaxPortable(values.subspan(i));
  for (float v : lanes) out = v > out ? v : out;
  if (!_mm256_testz_ps(nan, nan) || std::isnan(out)) return std::numeric_limits<float>::quiet_NaN();
  return out;
}

ORCD_AVX2 size_t Scan(std::span<const float> values, size_t begin, float threshold, size_t capacity,
                      std::vector<int32_t>& ids) {
  const __m256 t = _mm256_set1_ps(threshold);
  size_t i = begin;
  for (; i + 8 <= values.size(); i += 8) {
    auto mask = static_cast<unsigned>(
        _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(values.data() + i), t, _CMP_GE_OQ)));
    for (; mask != 0; mask &= mask - 1) {
      const size_t at = i + static_cast<size_t>(std::countr_zero(mask));
      if (ids.size() >= capacity) return at;  // resumes here
      ids.push_back(static_cast<int32_t>(at));
    }
  }
  return ScanPortable(values, i, threshold, capacity, ids);
}

ORCD_AVX2 GridSums ExpTail(std::span<const float> values, float below, float max, double inv_u,
                           float* e) {
  GridLanes lanes = ZeroLanes();
  const __m256 vbelow = _mm256_set1_ps(below), vmax = _mm256_set1_ps(max);
  const __m256 negligible = _mm256_set1_ps(kNegligibleLogit);
  const __m256d vinv = _mm256_set1_pd(inv_u);
  size_t i = 0;
  for (; i + 8 <= values.size(); i += 8) {
    const __m256 v = _mm256_loadu_ps(values.data() + i);
    const __m256 d = _mm256_sub_ps(v, vmax);
    const __m256 keep = _mm256_and_ps(_mm256_cmp_ps(v, vbelow, _CMP_LT_OQ),
                                      _mm256_cmp_ps(d, negligible, _CMP_GE_OQ));
    if (_mm256_testz_ps(keep, keep)) {
      _mm256_storeu_ps(e + i, _mm256_setzero_ps());
      continue;
    }
    const __m256 x = _mm256_and_ps(Exp8(d), keep);
    _mm256_storeu_ps(e + i, x);
    GridAdd<false>(lanes, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), vinv));
    GridAdd<false>(lanes, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), vinv));
  }
  GridSums grid = Reduce<false>(lanes);
  grid.Merge(ExpTailPortable(values.subspan(i), below, max, inv_u, e + i));
  return grid;
}

ORCD_AVX2 GridSums GridTail(std::span<const float> values, double inv_u) {
  GridLanes lanes = ZeroLanes();
  const __m256d vinv = _mm256_set1_pd(inv_u);
  size_t i = 0;
  for (; i + 4 <= values.size(); i += 4) {
    const __m256d x = _mm256_cvtps_pd(_mm_loadu_ps(values.data() + i));
    GridAdd<true>(lanes, _mm256_mul_pd(x, vinv));  // 0 adds 0
  }
  GridSums grid = Reduce<true>(lanes);
  grid.Merge(GridTailPortable(values.subspan(i), inv_u));
  return grid;
}

ORCD_AVX2 ProbSums ProbTail(std::span<const float> e, std::span<const float> values, Range range,
                            double sum_lo, double sum_hi, double floor) {
  // p = float(x / sum) is the same for every sum within the bounds unless
  // x / sum is near a midpoint between floats: the 29 bits a double drops
  // there within `margin` of half. x * (1 / mid) instead of x / sum is off
  // by two roundings more, inside the margin too. Groups with a lane near a
  // midpoint take the portable route (both quotients).
  const double margin = (sum_hi - sum_lo) / sum_lo * 0x1p54 + 8.0;
  if (!(margin < 0x1p26)) return ProbTailPortable(e, values, range, sum_lo, sum_hi, floor);
  const __m256i vmargin = _mm256_set1_epi64x(static_cast<int64_t>(margin));
  const __m256i neg_margin = _mm256_set1_epi64x(-static_cast<int64_t>(margin));
  const __m256i dropped = _mm256_set1_epi64x((int64_t{1} << 29) - 1);
  const __m256i midpoint = _mm256_set1_epi64x(int64_t{1} << 28);
  const __m256d inv_mid = _mm256_set1_pd(1.0 / (0.5 * (sum_lo + sum_hi)));
  const __m256d vfloor = _mm256_set1_pd(floor), zero = _mm256_setzero_pd();
  __m256d sum = zero;
  __m256i count = _mm256_setzero_si256();
  ProbSums out;
  size_t i = 0;
  for (; i + 8 <= e.size(); i += 8) {
    const __m256 x8 = _mm256_and_ps(_mm256_loadu_ps(e.data() + i),
                                    InRange(_mm256_loadu_ps(values.data() + i), range));
    if (_mm256_testz_si256(_mm256_castps_si256(x8), _mm256_castps_si256(x8))) continue;
    for (int half = 0; half < 2; ++half) {
      const __m128 x4 = half ? _mm256_extractf128_ps(x8, 1) : _mm256_castps256_ps128(x8);
      const __m256d quotient = _mm256_mul_pd(_mm256_cvtps_pd(x4), inv_mid);
      const __m256i off =
          _mm256_sub_epi64(_mm256_and_si256(_mm256_castpd_si256(quotient), dropped), midpoint);
      const __m256i robust =
          _mm256_or_si256(_mm256_cmpgt_epi64(off, vmargin), _mm256_cmpgt_epi64(neg_margin, off));
      if (_mm256_movemask_pd(_mm256_castsi256_pd(robust)) != 0xF) {
        alignas(16) float x[4];
        _mm_store_ps(x, x4);  // 0 where out of the range: skipped
        const ProbSums near = ProbTailPortable(x, x, kEverything, sum_lo, sum_hi, floor);
        out.lo += near.lo;
        out.hi += near.hi;
        out.count += near.count;
        continue;
      }
      const __m256d p = _mm256_cvtps_pd(_mm256_cvtpd_ps(quotient));
      const __m256d keep =
          _mm256_and_pd(_mm256_cmp_pd(p, vfloor, _CMP_GE_OQ), _mm256_cmp_pd(p, zero, _CMP_GT_OQ));
      sum = _mm256_add_pd(sum, _mm256_and_pd(keep, p));
      count = _mm256_sub_epi64(count, _mm256_castpd_si256(keep));  // keep lanes are -1
    }
  }
  alignas(32) double lanes[4];
  alignas(32) int64_t counts[4];
  _mm256_store_pd(lanes, sum);
  _mm256_store_si256(reinterpret_cast<__m256i*>(counts), count);
  const double common = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  out.lo += common;
  out.hi += common;
  out.count += counts[0] + counts[1] + counts[2] + counts[3];
  const ProbSums rest =
      ProbTailPortable(e.subspan(i), values.subspan(i), range, sum_lo, sum_hi, floor);
  out.lo += rest.lo;
  out.hi += rest.hi;
  out.count += rest.count;
  return out;
}

ORCD_AVX2 RangeMass MassIn(std::span<const float> e, std::span<const float> values, Range range) {
  __m256d sum = _mm256_setzero_pd();
  __m256i count = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 8 <= e.size(); i += 8) {
    const __m256 in = InRange(_mm256_loadu_ps(values.data() + i), range);
    const __m256 x = _mm256_and_ps(_mm256_loadu_ps(e.data() + i), in);
    sum = _mm256_add_pd(sum, _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(x)),
                                           _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1))));
    count = _mm256_sub_epi32(count, _mm256_castps_si256(in));  // in lanes are -1
  }
  alignas(32) double lanes[4];
  alignas(32) int32_t counts[8];
  _mm256_store_pd(lanes, sum);
  _mm256_store_si256(reinterpret_cast<__m256i*>(counts), count);
  RangeMass out = MassInPortable(e.subspan(i), values.subspan(i), range);
  out.e_sum += (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  for (int32_t c : counts) out.count += c;
  return out;
}

ORCD_AVX2 void Collect(std::span<const float> values, Range range, std::vector<int32_t>& ids) {
  size_t i = 0;
  for (; i + 8 <= values.size(); i += 8) {
    auto mask = static_cast<unsigned>(
        _mm256_movemask_ps(InRange(_mm256_loadu_ps(values.data() + i), range)));
    for (; mask != 0; mask &= mask - 1)
      ids.push_back(static_cast<int32_t>(i + static_cast<size_t>(std::countr_zero(mask))));
  }
  CollectPortable(values, i, range, ids);
}

bool Usable() {
  static const bool usable =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && ExpMatchesLibm(Exp8Array);
  return usable;
}

#undef ORCD_AVX2
}  // namespace orcd::sampling::avx2

#endif  // __x86_64__
