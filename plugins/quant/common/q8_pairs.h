// 32-element blocks two at a time in 512-bit registers (the AVX-512 VNNI
// matvec_q8 / matmul_q8 of Q5_0 and Q8_0), and the AVX2 order that gives
// their bits.
//
// Per block, a 32-element dot is one vpdpbusd, one int->float conversion and
// one scaled FMA; with 256-bit registers the sign handling and the scale's
// broadcast cost as much again, which made batched decode compute-bound on a
// 2-core Zen 5 VM (8 sequences at 1.1x one). Two blocks per zmm halve the
// per-block instructions; the weights go to vpdpbusd's unsigned side as
// stored (plus an offset), made once per (row, block) for every token of a
// tile, and x's pairs (with the offset's correction) once per call.
//
// Bits: each block's eight int32 lanes are dot_s8s8's (the same products in
// the same groups of four), scaled by the same float product. Blocks 0, 2, 4
// ... accumulate into lanes 0-7 and blocks 1, 3, 5 ... into lanes 8-15; an odd
// last block goes to lanes 0-7; the row's sum is hsum(lo + hi). The AVX2
// matvec_q8 of a paired type keeps the same two accumulators (even, odd) and
// ends the same way, so the variants stay bit-identical.
#ifndef ORCD_QUANT_COMMON_Q8_PAIRS_H_
#define ORCD_QUANT_COMMON_Q8_PAIRS_H_

#include "common/compiler.h"

#if ORCD_QUANT_HAVE_X86

#include <immintrin.h>
#include <stdint.h>

#include <concepts>

#include "common/q8_activations.h"

namespace orcd::quant::q8 {

// A type whose 32-element blocks pair (T::kPairedBlocks): its weights are
// w = u - T::kWeightOffset with u unsigned bytes; T::unsigned_weight_pair(b)
// gives b[0]'s and b[1]'s u in one zmm, T::block_scale(b) a block's scale.
template <class T>
concept HasPairedBlocks = requires(const typename T::Block* b) {
  requires T::kPairedBlocks;
  requires(T::kWeightOffset > 0);
  T::unsigned_weight_pair(b);
  { T::block_scale(*b) } -> std::same_as<float>;
};

// The AVX2 end of a paired row: blocks alternate between even and odd.
ORCD_QUANT_AVX2 inline float hsum_pair(__m256 even, __m256 odd) {
  return hsum(_mm256_add_ps(even, odd));
}

// Two weight blocks as vpdpbusd's unsigned side, each block's scale in its
// eight lanes.
struct WeightPair {
  __m512i u;
  __m512 d;
};

// Two x blocks: their 64 int8, -offset times each int32 lane's four x (so
// that vpdpbusd(corr, u, q) = sum of (u - offset) * x = dot_s8s8's lanes,
// exactly), each block's scale in its eight lanes.
struct XPair {
  __m512i q;
  __m512i corr;
  __m512 d;
};

ORCD_QUANT_AVX512_VNNI inline __m512 scales_pair(float lo, float hi) {
  return _mm512_mask_blend_ps(0xFF00, _mm512_set1_ps(lo), _mm512_set1_ps(hi));
}

ORCD_QUANT_AVX512_VNNI inline __m512i bytes_pair(__m256i lo, __m256i hi) {
  return _mm512_mask_broadcast_i64x4(broadcast_256(lo), 0xF0, hi);
}

template <class T>
ORCD_QUANT_AVX512_VNNI __attribute__((always_inline)) inline void make_weight_pair(
    const typename T::Block* b, WeightPair& p) {
  p.u = T::unsigned_weight_pair(b);
  p.d = scales_pair(T::block_scale(b[0]), T::block_scale(b[1]));
}

template <class T>
ORCD_QUANT_AVX512_VNNI inline XPair make_x_pair(const Q8x32& lo, const Q8x32& hi) {
  const __m512i q = bytes_pair(load_q(lo), load_q(hi));
  const __m512i lane_sums = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(1), q);
  return {q, _mm512_mullo_epi32(lane_sums, _mm512_set1_epi32(-T::kWeightOffset)),
          scales_pair(lo.d, hi.d)};
}

// acc += both blocks' integer lanes scaled by w's and x's scales.
ORCD_QUANT_AVX512_VNNI __attribute__((always_inline)) inline void dot_pair(const WeightPair& w,
                                                                           const XPair& x,
                                                                           __m512& acc) {
  const __m512i s = _mm512_dpbusd_epi32(x.corr, w.u, x.q);
  acc = _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(0xFFFF, s), _mm512_mul_ps(w.d, x.d), acc);
}

// The row's sum: an odd last block (dot_tail: T::dot_q8_vnni into lanes
// 0-7) is added to the even half before the halves meet, as in the AVX2 order.
template <class DotTail>
ORCD_QUANT_AVX512_VNNI __attribute__((always_inline)) inline float finish_pairs(__m512 acc,
                                                                                DotTail dot_tail) {
  const __m512d halves = _mm512_castps_pd(acc);
  __m256 even = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, halves, 0));
  const __m256 odd = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, halves, 1));
  dot_tail(even);
  return hsum(_mm256_add_ps(even, odd));
}

}  // namespace orcd::quant::q8

#endif  // ORCD_QUANT_HAVE_X86

#endif  // ORCD_QUANT_COMMON_Q8_PAIRS_H_
