// Sixteen weight rows in the sixteen lanes of a zmm: the AVX-512 VNNI
// matvec_q8 / matmul_q8 of the types whose 32-element blocks pair (Q5_0,
// Q8_0; q8_pairs.h).
//
// The arithmetic, per row and token (the bits): each block's dot product is
// summed exactly in integers, T_b = sum of w_i * q_i; then, block after
// block, acc = fma(float(T_b), d_w * d_x, acc), from acc = 0. One float
// conversion, multiply and FMA per block and row instead of per eight-lane
// group (the per-group kernels spent three quarters of their instructions on
// float work), and sixteen rows per instruction.
//
// matmul_q8 puts rows in lanes directly: a tile's weights are transposed
// once (lane r = row r's four bytes of a group) and each token's x is
// broadcast four bytes at a time. matvec_q8 (one token, nothing to amortize
// a transpose over) multiplies each row's pair of blocks as it lies and
// reduces the sixteen rows' lanes to their block totals (row_totals). Both
// then take the same float steps, so one token gives the same bits either way.
//
// On the Qwen2.5-0.5B shape (2-core Zen 5 VM) prompts went ~1.45x faster, 8
// sequences' decode ~1.05x, one sequence's the same. At 8 tokens the
// unpacking and transposing of each tile costs about what its arithmetic
// does: weights repacked at load (rows in lanes already) would remove it.
#ifndef ORCD_QUANT_COMMON_Q8_ROW_LANES_H_
#define ORCD_QUANT_COMMON_Q8_ROW_LANES_H_

#include "common/compiler.h"

#if ORCD_QUANT_HAVE_X86

#include <immintrin.h>
#include <stdint.h>

#include "common/q8_pairs.h"

namespace orcd::quant::q8 {

// Shuffles below use the zero-masking forms (all lanes kept): the plain ones
// start from _mm512_undefined_* (q8_activations.h: GCC bug 105593).

inline constexpr int kLaneRows = 16;

// One x block as the row-lane matmul reads it: its 32 int8 as eight ints
// (each broadcast to every row's lane), its scale, and -offset * sum(q), the
// correction of the unsigned weights (exact).
struct XLanes {
  int32_t q[8];
  float d;
  int32_t corr;
};

// Sixteen rows' fp16 scales of a block as floats.
ORCD_QUANT_AVX512_VNNI __attribute__((always_inline)) inline __m512 scales_of(
    const uint16_t (&d)[kLaneRows]) {
  return _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d)));
}

// v[r] (row r's 16 ints) becomes v[c] (column c's 16 rows): a 16 x 16
// transpose of int32.
ORCD_QUANT_AVX512_VNNI __attribute__((always_inline)) inline void transpose16(__m512i (&v)[16]) {
  __m512i t[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_maskz_unpacklo_epi32(0xFFFF, v[2 * i], v[2 * i + 1]);
    t[2 * i + 1] = _mm512_maskz_unpackhi_epi32(0xFFFF, v[2 * i], v[2 * i + 1]);
  }
  // u[4 * quad + k], 128-bit lane l: rows 4 * quad .. + 3 of column 4l + k.
  __m512i u[16];
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    u[4 * q + 0] = _mm512_maskz_unpacklo_epi64(0xFF, t[4 * q], t[4 * q + 2]);
    u[4 * q + 1] = _mm512_maskz_unpackhi_epi64(0xFF, t[4 * q], t[4 * q + 2]);
    u[4 * q + 2] = _mm512_maskz_unpacklo_epi64(0xFF, t[4 * q + 1], t[4 * q + 3]);
    u[4 * q + 3] = _mm512_maskz_unpackhi_epi64(0xFF, t[4 * q + 1], t[4 * q + 3]);
  }
  // A 4 x 4 transpose of 128-bit lanes per k.
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    const __m512i ab_lo =
        _mm512_maskz_shuffle_i32x4(0xFFFF, u[k], u[4 + k], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512i ab_hi =
        _mm512_maskz_shuffle_i32x4(0xFFFF, u[k], u[4 + k], _MM_SHUFFLE(3, 2, 3, 2));
    const __m512i cd_lo =
        _mm512_maskz_shuffle_i32x4(0xFFFF, u[8 + k], u[12 + k], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512i cd_hi =
        _mm512_maskz_shuffle_i32x4(0xFFFF, u[8 + k], u[12 + k], _MM_SHUFFLE(3, 2, 3, 2));
    v[k] = _mm512_maskz_shuffle_i32x4(0xFFFF, ab_lo, cd_lo, _MM_SHUFFLE(2, 0, 2, 0));
    v[4 + k] = _mm512_maskz_shuffle_i32x4(0xFFFF, ab_lo, cd_lo, _MM_SHUFFLE(3, 1, 3, 1));
    v[8 + k] = _mm512_maskz_shuffle_i32x4(0xFFFF, ab_hi, cd_hi, _MM_SHUFFLE(2, 0, 2, 0));
    v[12 + k] = _mm512_maskz_shuffle_i32x4(0xFFFF, ab_hi, cd_hi, _MM_SHUFFLE(3, 1, 3, 1));
  }
}

// s[r]: row r's int32 lanes over a pair of blocks (lanes 0-7 the first
// block's, 8-15 the second's). even / odd: each row's total of the first /
// second block, row r in lane r (exact: integer adds).
ORCD_QUANT_AVX512_VNNI __attribute__((always_inline)) inline void row_totals(const __m512i (&s)[16],
                                                                             __m512i& even,
                                                                             __m512i& odd) {
  // Per 128-bit lane: rows 2i, 2i + 1, each as two partial sums.
  __m512i a[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    a[i] = _mm512_add_epi32(_mm512_maskz_unpacklo_epi32(0xFFFF, s[2 * i], s[2 * i + 1]),
                            _mm512_maskz_unpackhi_epi32(0xFFFF, s[2 * i], s[2 * i + 1]));
  }
  // Per 128-bit lane: rows 4i .. 4i + 3, each the sum of that lane's four.
  __m512i b[4];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    b[i] = _mm512_add_epi32(_mm512_maskz_unpacklo_epi64(0xFF, a[2 * i], a[2 * i + 1]),
                            _mm512_maskz_unpackhi_epi64(0xFF, a[2 * i], a[2 * i + 1]));
  }
  // 128-bit lanes 0 + 1 are the first block, 2 + 3 the second.
  __m512i c[2];
#pragma GCC unroll 2
  for (int i = 0; i < 2; ++i) {
    c[i] = _mm512_add_epi32(
        _mm512_maskz_shuffle_i32x4(0xFFFF, b[2 * i], b[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)),
        _mm512_maskz_shuffle_i32x4(0xFFFF, b[2 * i], b[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  }
  even = _mm512_maskz_shuffle_i32x4(0xFFFF, c[0], c[1], _MM_SHUFFLE(2, 0, 2, 0));
  odd = _mm512_maskz_shuffle_i32x4(0xFFFF, c[0], c[1], _MM_SHUFFLE(3, 1, 3, 1));
}

// acc = fma(float(total), d_w * d_x, acc): one block of 16 rows.
ORCD_QUANT_AVX512_VNNI __attribute__((always_inline)) inline __m512 scale_block(__m512i total,
                                                                                __m512 dw, float dx,
                                                                                __m512 acc) {
  return _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(0xFFFF, total),
                         _mm512_mul_ps(dw, _mm512_set1_ps(dx)), acc);
}

// A row's pair of blocks as vpdpbusd's unsigned side; an odd last block pairs
// with itself (its second copy's lanes are never read).
template <class T>
ORCD_QUANT_AVX512_VNNI __attribute__((always_inline)) inline __m512i unsigned_pair_at(
    const typename T::Block* row, int64_t b, int64_t row_blocks) {
  if (b + 1 < row_blocks) return T::unsigned_weight_pair(row + b);
  const typename T::Block last[2] = {row[b], row[b]};
  return T::unsigned_weight_pair(last);
}

}  // namespace orcd::quant::q8

#endif  // ORCD_QUANT_HAVE_X86

#endif  // ORCD_QUANT_COMMON_Q8_ROW_LANES_H_
