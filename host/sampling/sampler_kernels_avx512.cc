// The sampler's AVX-512 kernels for the two passes that dominate a token
// (see sampler_simd.h): eight lanes of double, and exp's table lookup by
// permutes instead of a gather.
#if defined(__x86_64__)
// GCC 12's AVX-512 headers self-initialise their "undefined" vectors, which
// -Wuninitialized flags once inlined (GCC bug 105593, fixed in 13).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <bit>
#include <cmath>

#include "host/sampling/sampler_simd.h"

namespace orcd::sampling::avx512 {
namespace {
#define ORCD_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,fma")))

// exp of eight floats in [-87, 0], as avx2's Exp8.
ORCD_AVX512 inline __m256 Exp8(__m256 x) {
  const __m512d xd = _mm512_cvtps_pd(x);
  const __m512d inv_ln2 = _mm512_set1_pd(kInvLn2x32), shift = _mm512_set1_pd(kShift);
  const __m512d kd_shifted = _mm512_fmadd_pd(inv_ln2, xd, shift);
  const __m512i ki = _mm512_castpd_si512(kd_shifted);
  const __m512d r = _mm512_fmsub_pd(inv_ln2, xd, _mm512_sub_pd(kd_shifted, shift));
  // kExp2Table[ki % 32]: two 16-entry permutes and a blend on bit 4.
  const auto* table = reinterpret_cast<const long long*>(kExp2Table);
  const __m512i low =
      _mm512_permutex2var_epi64(_mm512_loadu_si512(table), ki, _mm512_loadu_si512(table + 8));
  const __m512i high =
      _mm512_permutex2var_epi64(_mm512_loadu_si512(table + 16), ki, _mm512_loadu_si512(table + 24));
  __m512i t = _mm512_mask_blend_epi64(_mm512_test_epi64_mask(ki, _mm512_set1_epi64(16)), low, high);
  t = _mm512_add_epi64(t, _mm512_slli_epi64(ki, 47));
  const __m512d z = _mm512_fmadd_pd(_mm512_set1_pd(kPoly0), r, _mm512_set1_pd(kPoly1));
  const __m512d r2 = _mm512_mul_pd(r, r);
  __m512d y = _mm512_fmadd_pd(_mm512_set1_pd(kPoly2), r, _mm512_set1_pd(1.0));
  y = _mm512_fmadd_pd(z, r2, y);
  return _mm512_cvtpd_ps(_mm512_mul_pd(y, _mm512_castsi512_pd(t)));
}

ORCD_AVX512 void Exp8Array(const float* x, float* y) {
  _mm256_storeu_ps(y, Exp8(_mm256_loadu_ps(x)));
}

// The u grid of GridSums::Add on eight q: double lanes exact for 32 steps of
// q < kMaxGridStep, then flushed into int64 lanes.
struct GridLanes {
  __m512d lo, hi;
  __m512i lo_total, hi_total;
  __m512d q_sum;  // hi's block sums
  int steps;
};

ORCD_AVX512 inline void Flush(GridLanes& g) {
  g.lo_total = _mm512_add_epi64(g.lo_total, _mm512_cvtpd_epi64(g.lo));
  g.hi_total = _mm512_add_epi64(g.hi_total, _mm512_cvtpd_epi64(g.hi));
  g.q_sum = _mm512_add_pd(g.q_sum, g.hi);
  g.lo = g.hi = _mm512_setzero_pd();
  g.steps = 0;
}

ORCD_AVX512 inline void GridAdd(GridLanes& g, __m512d q) {
  constexpr int kCeil = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
  constexpr int kFloor = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
  const __m512d half = _mm512_set1_pd(0.5);
  g.lo = _mm512_add_pd(g.lo, _mm512_roundscale_pd(_mm512_sub_pd(q, half), kCeil));
  g.hi = _mm512_add_pd(g.hi, _mm512_roundscale_pd(_mm512_add_pd(q, half), kFloor));
  if (++g.steps == 32) Flush(g);
}

ORCD_AVX512 inline GridSums Reduce(GridLanes g) {
  Flush(g);
  return GridSums{.lo1 = _mm512_reduce_add_epi64(g.lo_total),
                  .hi1 = _mm512_reduce_add_epi64(g.hi_total),
                  .q_sum = _mm512_reduce_add_pd(g.q_sum)};
}

ORCD_AVX512 inline __mmask8 InRange(__m256 v, Range range) {
  return _mm256_cmp_ps_mask(v, _mm256_set1_ps(range.lo), _CMP_GE_OQ) &
         _mm256_cmp_ps_mask(v, _mm256_set1_ps(range.hi), _CMP_LT_OQ);
}

}  // namespace

ORCD_AVX512 GridSums ExpTail(std::span<const float> values, float below, float max, double inv_u,
                             float* e) {
  const __m512d zero = _mm512_setzero_pd();
  const __m512i izero = _mm512_setzero_si512();
  GridLanes lanes{zero, zero, izero, izero, zero, 0};
  const __m256 vbelow = _mm256_set1_ps(below), vmax = _mm256_set1_ps(max);
  const __m256 negligible = _mm256_set1_ps(kNegligibleLogit);
  const __m512d vinv = _mm512_set1_pd(inv_u);
  size_t i = 0;
  for (; i + 8 <= values.size(); i += 8) {
    const __m256 v = _mm256_loadu_ps(values.data() + i);
    const __m256 d = _mm256_sub_ps(v, vmax);
    const __mmask8 keep =
        _mm256_cmp_ps_mask(v, vbelow, _CMP_LT_OQ) & _mm256_cmp_ps_mask(d, negligible, _CMP_GE_OQ);
    if (keep == 0) {
      _mm256_storeu_ps(e + i, _mm256_setzero_ps());
      continue;
    }
    const __m256 x = _mm256_maskz_mov_ps(keep, Exp8(d));
    _mm256_storeu_ps(e + i, x);
    GridAdd(lanes, _mm512_mul_pd(_mm512_cvtps_pd(x), vinv));
  }
  GridSums grid = Reduce(lanes);
  grid.Merge(ExpTailPortable(values.subspan(i), below, max, inv_u, e + i));
  return grid;
}

ORCD_AVX512 ProbSums ProbTail(std::span<const float> e, std::span<const float> values, Range range,
                              double sum_lo, double sum_hi, double floor) {
  // As avx2's ProbTail: one product per value, the portable route for a
  // group with a quotient near a midpoint between floats.
  const double margin = (sum_hi - sum_lo) / sum_lo * 0x1p54 + 8.0;
  if (!(margin < 0x1p26)) return ProbTailPortable(e, values, range, sum_lo, sum_hi, floor);
  const __m512i vmargin = _mm512_set1_epi64(static_cast<int64_t>(margin));
  const __m512i neg_margin = _mm512_set1_epi64(-static_cast<int64_t>(margin));
  const __m512i dropped = _mm512_set1_epi64((int64_t{1} << 29) - 1);
  const __m512i midpoint = _mm512_set1_epi64(int64_t{1} << 28);
  const __m512d inv_mid = _mm512_set1_pd(1.0 / (0.5 * (sum_lo + sum_hi)));
  const __m512d vfloor = _mm512_set1_pd(floor), zero = _mm512_setzero_pd();
  __m512d sum = zero;
  int64_t count = 0;
  ProbSums out;
  size_t i = 0;
  for (; i + 8 <= e.size(); i += 8) {
    const __mmask8 in =
        InRange(_mm256_loadu_ps(values.data() + i), range) &
        _mm256_cmp_ps_mask(_mm256_loadu_ps(e.data() + i), _mm256_setzero_ps(), _CMP_GT_OQ);
    if (in == 0) continue;
    const __m256 x = _mm256_maskz_loadu_ps(in, e.data() + i);
    const __m512d quotient = _mm512_mul_pd(_mm512_cvtps_pd(x), inv_mid);
    const __m512i off =
        _mm512_sub_epi64(_mm512_and_si512(_mm512_castpd_si512(quotient), dropped), midpoint);
    const __mmask8 robust =
        _mm512_cmpgt_epi64_mask(off, vmargin) | _mm512_cmpgt_epi64_mask(neg_margin, off);
    if (robust != 0xFF) {
      alignas(32) float near[8];
      _mm256_store_ps(near, x);  // 0 where out of the range: skipped
      const ProbSums part = ProbTailPortable(near, near, kEverything, sum_lo, sum_hi, floor);
      out.lo += part.lo;
      out.hi += part.hi;
      out.count += part.count;
      continue;
    }
    const __m512d p = _mm512_cvtps_pd(_mm512_cvtpd_ps(quotient));
    const __mmask8 keep =
        _mm512_cmp_pd_mask(p, vfloor, _CMP_GE_OQ) & _mm512_cmp_pd_mask(p, zero, _CMP_GT_OQ);
    sum = _mm512_mask_add_pd(sum, keep, sum, p);
    count += std::popcount(static_cast<unsigned>(keep));
  }
  const double common = _mm512_reduce_add_pd(sum);
  out.lo += common;
  out.hi += common;
  out.count += count;
  const ProbSums rest =
      ProbTailPortable(e.subspan(i), values.subspan(i), range, sum_lo, sum_hi, floor);
  out.lo += rest.lo;
  out.hi += rest.hi;
  out.count += rest.count;
  return out;
}

bool Usable() {
  static const bool usable = __builtin_cpu_supports("avx512f") &&
                             __builtin_cpu_supports("avx512vl") &&
                             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma") &&
                             ExpMatchesLibm(Exp8Array);
  return usable;
}

#undef ORCD_AVX512
}  // namespace orcd::sampling::avx512

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif  // __x86_64__
