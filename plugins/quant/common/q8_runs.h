// The AVX2 8-bit dot of a 256-element K-quant block as eight runs of 32
// values: each run multiplies unsigned weight values with x (maddubs) and
// applies its int16 scale (madd) into eight int32 lanes. A type T using it
// has
//   struct PrepAvx2 { __m256i q[8]; __m256i scales[8]; ... };  // unpacked
//   static void prepare_avx2(const Block&, PrepAvx2&);
//   static __m256i sumi_init_avx2(const PrepAvx2&, const Q8x256&);  // offsets
//   static void finish_avx2(const PrepAvx2&, const Q8x256&, __m256i sumi,
//                           __m256& acc);                       // to float
// and its dot_q8_avx2 is dot_by_runs<T>: the batch-1 path (matvec_q8) and the
// register-blocked tiles of matmul_q8 then share every operation, so they
// share the bits (integer lanes are exact in any order).
#ifndef ORCD_QUANT_COMMON_Q8_RUNS_H_
#define ORCD_QUANT_COMMON_Q8_RUNS_H_

#include "common/q8_activations.h"

#if ORCD_QUANT_HAVE_X86

namespace orcd::quant::q8 {

inline constexpr int kRunsPer256 = 8;

// s + (unsigned q) . x, scaled per int16 pair: one run of 32 values.
ORCD_QUANT_AVX2 inline __m256i run_step(__m256i q, __m256i x, __m256i scales, __m256i s) {
  return _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(q, x), scales));
}

template <class T>
ORCD_QUANT_AVX2 inline void dot_by_runs(const typename T::Block& b, const Q8x256& x, __m256& acc) {
  typename T::PrepAvx2 p;
  T::prepare_avx2(b, p);
  __m256i s = T::sumi_init_avx2(p, x);
#pragma GCC unroll 8
  for (int i = 0; i < kRunsPer256; ++i) s = run_step(p.q[i], load_q(x, 32 * i), p.scales[i], s);
  T::finish_avx2(p, x, s, acc);
}

}  // namespace orcd::quant::q8

#endif  // ORCD_QUANT_HAVE_X86

#endif  // ORCD_QUANT_COMMON_Q8_RUNS_H_
