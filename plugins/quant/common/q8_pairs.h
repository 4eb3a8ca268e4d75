// 32-element blocks two at a time in 512-bit registers: the AVX-512 VNNI
// matvec_q8 / matmul_q8 of Q5_0 and Q8_0 (q8_row_lanes.h) read a row's pair
// of blocks as one zmm of vpdpbusd's unsigned side (the stored values plus
// an offset) and x's pair with the offset's correction, so that each int32
// lane is exactly dot_s8s8's. The AVX2 matvec_q8 of these types keeps two
// accumulators (even and odd blocks), added at the row's end (hsum_pair).
//
// The two variants' bits differ: AVX2 scales each block's eight lanes in
// float, VNNI each block's exact integer total (q8_row_lanes.h); both are
// within float rounding of the same integer products
// (tests/quant/quant_q8_vnni_test.cc).
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
// gives b[0]'s and b[1]'s u in one zmm; a block's fp16 scale is its `d`.
template <class T>
concept HasPairedBlocks = requires(const typename T::Block* b) {
  requires T::kPairedBlocks;
  requires(T::kWeightOffset > 0);
  T::unsigned_weight_pair(b);
  requires std::same_as<decltype(T::Block::d), uint16_t>;
};

// The AVX2 end of a paired row: blocks alternate between even and odd.
ORCD_QUANT_AVX2 inline float hsum_pair(__m256 even, __m256 odd) {
  return hsum(_mm256_add_ps(even, odd));
}

// Two x blocks: their 64 int8, and -offset times each int32 lane's four x (so
// that vpdpbusd(corr, u, q) = sum of (u - offset) * x = dot_s8s8's lanes,
// exactly).
struct XPair {
  __m512i q;
  __m512i corr;
};

ORCD_QUANT_AVX512_VNNI inline __m512i bytes_pair(__m256i lo, __m256i hi) {
  return _mm512_mask_broadcast_i64x4(broadcast_256(lo), 0xF0, hi);
}

template <class T>
ORCD_QUANT_AVX512_VNNI inline XPair make_x_pair(const Q8x32& lo, const Q8x32& hi) {
  const __m512i q = bytes_pair(load_q(lo), load_q(hi));
  const __m512i lane_sums = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(1), q);
  return {q, _mm512_mullo_epi32(lane_sums, _mm512_set1_epi32(-T::kWeightOffset))};
}

}  // namespace orcd::quant::q8

#endif  // ORCD_QUANT_HAVE_X86

#endif  // ORCD_QUANT_COMMON_Q8_PAIRS_H_
