// AVX2 helpers the per-type block decoders share: bytes -> floats with exactly
// ggml's scalar arithmetic (int -> float is exact; one rounding per multiply
// and per add, never fused), so AVX2 decoding is bit-identical to ggml's.
#ifndef ORCD_QUANT_COMMON_AVX2_CONVERT_H_
#define ORCD_QUANT_COMMON_AVX2_CONVERT_H_

#include "common/block_codec.h"
#include "common/compiler.h"

#if ORCD_QUANT_HAVE_X86
#include <immintrin.h>
#include <stdint.h>

namespace orcd::quant::avx2_convert {

// out[0..15] = float(int8 q[i]) * d
ORCD_QUANT_AVX2 inline void store_i8x16_mul(float* out, __m128i q, __m256 d) {
  const __m256 lo = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q));
  const __m256 hi = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(q, 8)));
  _mm256_storeu_ps(out, _mm256_mul_ps(lo, d));
  _mm256_storeu_ps(out + 8, _mm256_mul_ps(hi, d));
}

// out[0..15] = float(uint8 q[i]) * d + m
ORCD_QUANT_AVX2 inline void store_u8x16_mul_add(float* out, __m128i q, __m256 d, __m256 m) {
  const __m256 lo = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(q));
  const __m256 hi = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(q, 8)));
  _mm256_storeu_ps(out, _mm256_add_ps(_mm256_mul_ps(lo, d), m));
  _mm256_storeu_ps(out + 8, _mm256_add_ps(_mm256_mul_ps(hi, d), m));
}

// out[0..15] = d * float(uint8 q[i]) - m   (the K-quant form)
ORCD_QUANT_AVX2 inline void store_u8x16_mul_sub(float* out, __m128i q, __m256 d, __m256 m) {
  const __m256 lo = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(q));
  const __m256 hi = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(q, 8)));
  _mm256_storeu_ps(out, _mm256_sub_ps(_mm256_mul_ps(d, lo), m));
  _mm256_storeu_ps(out + 8, _mm256_sub_ps(_mm256_mul_ps(d, hi), m));
}

// The decode-and-dot forms: the same decoded values, multiplied into two
// accumulators instead of stored (8 + 8 elements). acc += w * x fused, as
// the matmul's accumulators do with stored values, so results are identical.
ORCD_QUANT_AVX2 inline void fma_i8x16_mul(__m128i q, __m256 d, const float* x, __m256& acc_lo,
                                          __m256& acc_hi) {
  const __m256 lo = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q));
  const __m256 hi = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(q, 8)));
  acc_lo = _mm256_fmadd_ps(_mm256_mul_ps(lo, d), _mm256_loadu_ps(x), acc_lo);
  acc_hi = _mm256_fmadd_ps(_mm256_mul_ps(hi, d), _mm256_loadu_ps(x + 8), acc_hi);
}

ORCD_QUANT_AVX2 inline void fma_u8x16_mul_sub(__m128i q, __m256 d, __m256 m, const float* x,
                                              __m256& acc_lo, __m256& acc_hi) {
  const __m256 lo = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(q));
  const __m256 hi = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(q, 8)));
  acc_lo = _mm256_fmadd_ps(_mm256_sub_ps(_mm256_mul_ps(d, lo), m), _mm256_loadu_ps(x), acc_lo);
  acc_hi = _mm256_fmadd_ps(_mm256_sub_ps(_mm256_mul_ps(d, hi), m), _mm256_loadu_ps(x + 8), acc_hi);
}

ORCD_QUANT_AVX2 inline __m128i low_nibbles(__m128i q) {
  return _mm_and_si128(q, _mm_set1_epi8(0x0F));
}

ORCD_QUANT_AVX2 inline __m128i high_nibbles(__m128i q) {
  return _mm_and_si128(_mm_srli_epi16(q, 4), _mm_set1_epi8(0x0F));
}

// Byte i = 0x10 when bit i of `bits` is set, else 0 (Q5_0 / Q5_1 high bits).
ORCD_QUANT_AVX2 inline __m128i bits16_to_0x10(uint32_t bits) {
  const __m128i spread =
      _mm_shuffle_epi8(_mm_cvtsi32_si128(static_cast<int>(bits)),
                       _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
  const __m128i select = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
  const __m128i set = _mm_cmpeq_epi8(_mm_and_si128(spread, select), select);
  return _mm_and_si128(set, _mm_set1_epi8(0x10));
}

// Byte i = 0x10 when bit `shift` of byte i of q is set (Q5_K high bits).
ORCD_QUANT_AVX2 inline __m128i bit_to_0x10(__m128i q, int shift) {
  const __m128i bit = _mm_and_si128(_mm_srl_epi16(q, _mm_cvtsi32_si128(shift)), _mm_set1_epi8(1));
  return _mm_slli_epi16(bit, 4);
}

// Q4_K / Q5_K group g (64 elements): the broadcast d * scale and dmin * min of
// its two 32-element sub-blocks (2g, 2g + 1), products rounded as in ggml.
struct KGroupScales {
  __m256 d1, m1, d2, m2;
};
ORCD_QUANT_AVX2 inline KGroupScales k_group_scales(int g, const uint8_t* scales, float d,
                                                   float dmin) {
  uint8_t sc, m;
  KGroupScales out;
  get_scale_min_k4(2 * g, scales, &sc, &m);
  out.d1 = _mm256_set1_ps(d * sc);
  out.m1 = _mm256_set1_ps(dmin * m);
  get_scale_min_k4(2 * g + 1, scales, &sc, &m);
  out.d2 = _mm256_set1_ps(d * sc);
  out.m2 = _mm256_set1_ps(dmin * m);
  return out;
}

}  // namespace orcd::quant::avx2_convert

#endif  // ORCD_QUANT_HAVE_X86

#endif  // ORCD_QUANT_COMMON_AVX2_CONVERT_H_
