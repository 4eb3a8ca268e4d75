// 8-bit activations for batch-1 decode (llama.cpp's CPU arithmetic): x is
// rounded to int8 once per matvec, one scale per weight block's span (32
// elements, or 256 for the K-quants, like ggml's Q8_0 / Q8_K), then every
// weight block is multiplied with integer instructions (maddubs / madd) and
// converted to float once per block. Several times the f32 path's throughput on types
// whose decode is compute-bound (Q4_K, Q6_K, Q5_0); the price is the
// activation rounding (~0.3 % relative per dot product), the same rounding the
// fixtures' reference applies (fixtures README, "Calibration").
#ifndef ORCD_QUANT_COMMON_Q8_ACTIVATIONS_H_
#define ORCD_QUANT_COMMON_Q8_ACTIVATIONS_H_

#include "common/compiler.h"

#if ORCD_QUANT_HAVE_X86
#include <immintrin.h>
#include <stdint.h>

namespace orcd::quant::q8 {

// One 32-element block of x: x[i] ~= d * q[i]; sum = d * sum(q) (for the
// K-quants' min term).
struct Q8x32 {
  float d;
  float sum;
  int8_t q[32];
};

// One 256-element block of x (the K-quants): x[i] ~= d * q[i]; bsums[j] =
// sum of q[16j .. 16j + 15] (for the K-quants' min and offset terms).
struct Q8x256 {
  float d;
  int16_t bsums[16];
  int8_t q[256];
};

// The longest row the batch-1 path takes (x blocks live on the stack);
// longer rows use the f32 path.
inline constexpr int64_t kMaxCols = 16384;

ORCD_QUANT_AVX2 inline int32_t hsum_i32(__m256i v) {
  __m128i t = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4E));
  t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1));
  return _mm_cvtsi128_si32(t);
}

// The largest of v's eight lanes (exact whatever the order).
ORCD_QUANT_AVX2 inline float hmax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

// Rounds n (a multiple of 32) values with one scale: d = amax / 127, q =
// nearest(x / d) as x * (1 / d). Returns d; sums[j] = sum of q[16j..16j+15].
ORCD_QUANT_AVX2 inline float quantize_span(const float* x, int n, int8_t* q, int32_t* sums) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 amax = _mm256_setzero_ps();
  for (int i = 0; i < n; i += 8)
    amax = _mm256_max_ps(amax, _mm256_andnot_ps(sign, _mm256_loadu_ps(x + i)));
  const float d = hmax(amax) / 127.0f;
  const __m256 id = _mm256_set1_ps(d != 0.0f ? 1.0f / d : 0.0f);
  for (int b = 0; b < n; b += 32) {
    __m256i iv[4];
    for (int i = 0; i < 4; ++i)  // nearest (the default rounding mode)
      iv[i] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + b + 8 * i), id));
    sums[b / 16] = hsum_i32(_mm256_add_epi32(iv[0], iv[1]));
    sums[b / 16 + 1] = hsum_i32(_mm256_add_epi32(iv[2], iv[3]));
    // packs work per 128-bit lane: the permute puts the 32 bytes back in order.
    const __m256i p16a = _mm256_packs_epi32(iv[0], iv[1]);
    const __m256i p16b = _mm256_packs_epi32(iv[2], iv[3]);
    const __m256i p8 = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(p16a, p16b),
                                                   _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + b), p8);
  }
  return d;
}

ORCD_QUANT_AVX2 inline void quantize_x(const float* x, Q8x32& out) {
  int32_t sums[2];
  out.d = quantize_span(x, 32, out.q, sums);
  out.sum = out.d * static_cast<float>(sums[0] + sums[1]);
}

ORCD_QUANT_AVX2 inline void quantize_x(const float* x, Q8x256& out) {
  int32_t sums[16];
  out.d = quantize_span(x, 256, out.q, sums);
  for (int j = 0; j < 16; ++j) out.bsums[j] = static_cast<int16_t>(sums[j]);
}

ORCD_QUANT_AVX2 inline __m256i load_q(const Q8x32& x) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.q));
}

// 32 values of a 256-block starting at element i.
ORCD_QUANT_AVX2 inline __m256i load_q(const Q8x256& x, int i) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.q + i));
}

// 64 values of a 256-block starting at element i (AVX-512 kernels).
ORCD_QUANT_AVX512_VNNI inline __m512i load_q64(const Q8x256& x, int i) {
  return _mm512_loadu_si512(x.q + i);
}

// The AVX-512 helpers below use the zero-masking forms of broadcast and
// extract: the plain ones start from _mm512_undefined_*, which GCC 12 flags
// as uninitialized once inlined (-Werror; GCC bug 105593). Same instructions.

// fp16_to_f32 in one instruction (F16C): the same value for every half that
// is not a NaN (hardware quiets signalling NaNs).
ORCD_QUANT_AVX512_VNNI inline float half_to_float(uint16_t h) { return _cvtsh_ss(h); }

// The same in the AVX2 kernels (F16C comes with their target).
ORCD_QUANT_AVX2 inline float half_to_float_avx2(uint16_t h) { return _cvtsh_ss(h); }

// 32 bytes in both 256-bit halves.
ORCD_QUANT_AVX512_VNNI inline __m512i broadcast_256(__m256i v) {
  return _mm512_maskz_broadcast_i64x4(0xFF, v);
}

// int16 lo in words 0..15, hi in words 16..31.
ORCD_QUANT_AVX512_VNNI inline __m512i halves_epi16(int lo, int hi) {
  const int64_t l = static_cast<int64_t>(0x0001000100010001u * static_cast<uint16_t>(lo));
  const int64_t h = static_cast<int64_t>(0x0001000100010001u * static_cast<uint16_t>(hi));
  return _mm512_set_epi64(h, h, h, h, l, l, l, l);
}

// lane j + lane j + 8 for j < 8: a zmm of int32 sums folded to the eight
// lanes the AVX2 kernels produce (exact: integer adds).
ORCD_QUANT_AVX512_VNNI inline __m256i fold_halves(__m512i v) {
  return _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(0xFF, v, 0),
                          _mm512_maskz_extracti64x4_epi64(0xFF, v, 1));
}

// Eight int32 partial sums of a[i] * b[i]: a unsigned bytes, b signed. Each
// pair sum must fit int16 (|a| * 127 * 2 <= 32767: a <= 128).
ORCD_QUANT_AVX2 inline __m256i dot_u8s8(__m256i a, __m256i b) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), _mm256_set1_epi16(1));
}

// The same with both signed: |a| goes to the unsigned side, a's sign onto b.
ORCD_QUANT_AVX2 inline __m256i dot_s8s8(__m256i a, __m256i b) {
  return dot_u8s8(_mm256_sign_epi8(a, a), _mm256_sign_epi8(b, a));
}

// dot_s8s8 in one vpdpbusd. The same int32 lanes: neither saturates, as
// |a| <= 128 and |b| <= 127 keep maddubs' pair sums inside int16.
ORCD_QUANT_AVX512_VNNI inline __m256i dot_s8s8_vnni(__m256i a, __m256i b) {
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_sign_epi8(a, a),
                             _mm256_sign_epi8(b, a));
}

// acc += float(isum) * scale
ORCD_QUANT_AVX2 inline void accumulate(__m256i isum, float scale, __m256& acc) {
  acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_set1_ps(scale), acc);
}

ORCD_QUANT_AVX2 inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

}  // namespace orcd::quant::q8

#endif  // ORCD_QUANT_HAVE_X86

#endif  // ORCD_QUANT_COMMON_Q8_ACTIVATIONS_H_
