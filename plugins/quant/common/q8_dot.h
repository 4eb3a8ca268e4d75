// Integer dot products of a weight block with 8-bit activations (the CUDA
// matvec_q8 ops, ABI 1.3; llama.cpp's MMVQ arithmetic). Each type T that
// supports them adds:
//
//   static constexpr int kQ8Parts;   // lanes sharing one block (divides 32)
//   ORCD_QUANT_HD static float dot_q8(const Block&, int part, const Q8x32* x);
//
// dot_q8 returns part `part`'s share of W_block . x, where x points at the
// kElems / 32 activation runs under the block. Integer sums are exact, so the
// only differences from float64 over the rounded activations are the few f32
// scalings per part. dot4 is dp4a on the GPU and a scalar shim elsewhere, so
// the same code runs on the device, under the emulator and in CPU tests.
#ifndef ORCD_QUANT_COMMON_Q8_DOT_H_
#define ORCD_QUANT_COMMON_Q8_DOT_H_

#include <stdint.h>
#include <string.h>

#include "common/block_codec.h"
#include "orcd/plugin.h"

namespace orcd::quant {

using Q8x32 = orcd_q8_x32;
static_assert(sizeof(Q8x32) == 36, "orcd_q8_x32 is part of the ABI");

// c + the sum of the four signed byte products of a and b (__dp4a).
ORCD_QUANT_HD int dot4(int a, int b, int c) {
#if defined(__CUDA_ARCH__)
  return __dp4a(a, b, c);
#else
  const uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  for (int i = 0; i < 4; ++i) {
    c += static_cast<int8_t>(ua >> (8 * i)) * static_cast<int8_t>(ub >> (8 * i));
  }
  return c;
#endif
}

// Sum of the four signed bytes of b, plus c.
ORCD_QUANT_HD int sum4(int b, int c) { return dot4(0x01010101, b, c); }

// Four bytes as an int, from memory 4-byte aligned (a4) or 2-byte aligned
// (a2: blocks whose size is not a multiple of 4). Host builds read bytes.
ORCD_QUANT_HD int load_int_a4(const void* p) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const int*>(p);
#else
  int v;
  memcpy(&v, p, 4);
  return v;
#endif
}

ORCD_QUANT_HD int load_int_a2(const void* p) {
#if defined(__CUDA_ARCH__)
  const uint16_t* h = static_cast<const uint16_t*>(p);
  return static_cast<int>(h[0] | (static_cast<uint32_t>(h[1]) << 16));
#else
  int v;
  memcpy(&v, p, 4);
  return v;
#endif
}

// Activation int i of a run: its values 4i .. 4i + 3.
ORCD_QUANT_HD int x_int(const Q8x32& x, int i) { return load_int_a4(x.qs + 4 * i); }

// Bits 4..7 of each byte moved down: the high nibbles of four packed bytes.
ORCD_QUANT_HD int high_nibbles(int q) {
  return static_cast<int>((static_cast<uint32_t>(q) >> 4) & 0x0F0F0F0Fu);
}
ORCD_QUANT_HD int low_nibbles(int q) {
  return static_cast<int>(static_cast<uint32_t>(q) & 0x0F0F0F0Fu);
}

// Bits first..first+3 of qh, each moved to bit 4 of its own byte (the fifth
// bit of Q5_0 / Q5_1 values).
ORCD_QUANT_HD int fifth_bits(uint32_t qh, int first) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= ((qh >> (first + i)) & 1u) << (8 * i + 4);
  return static_cast<int>(v);
}

// The legacy 32-element layouts (NibblePairs32Layout): part p covers bytes
// 4p..4p+3, i.e. values 4p..4p+3 (low nibbles) and 16+4p..16+4p+3 (high).
// Returns sum(q * x) and sum(x) over those eight values.
struct NibblePairSums {
  int qx;
  int x;
};
ORCD_QUANT_HD NibblePairSums nibble_pair_sums(int lo, int hi, const Q8x32& x, int part) {
  const int xl = x_int(x, part), xh = x_int(x, 4 + part);
  return {dot4(hi, xh, dot4(lo, xl, 0)), sum4(xh, sum4(xl, 0))};
}

// The same for the 5-bit legacy types (Q5_0, Q5_1): nibbles from qs, fifth
// bits from the 32-bit qh (both 2-byte aligned in their blocks).
ORCD_QUANT_HD NibblePairSums five_bit_pair_sums(const uint8_t* qs, const uint8_t* qh_bytes,
                                                const Q8x32& x, int part) {
  const int q = load_int_a2(qs + 4 * part);
  const uint32_t qh = static_cast<uint32_t>(load_int_a2(qh_bytes));
  return nibble_pair_sums(low_nibbles(q) | fifth_bits(qh, 4 * part),
                          high_nibbles(q) | fifth_bits(qh, 16 + 4 * part), x, part);
}

// Detects T::kQ8Parts (C++17: the CUDA sources are not C++20).
template <class T, class = void>
struct has_q8_dot {
  static constexpr bool value = false;
};
template <class T>
struct has_q8_dot<T, decltype(void(T::kQ8Parts))> {
  static constexpr bool value = true;
};

}  // namespace orcd::quant

#endif  // ORCD_QUANT_COMMON_Q8_DOT_H_
