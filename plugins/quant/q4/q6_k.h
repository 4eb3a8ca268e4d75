// Q6_K: super-blocks of 256 = 128 bytes ql (low 4 bits), 64 bytes qh (high 2
// bits), 16 signed 8-bit scales (one per 16 elements), fp16 d; x = d*scale*(q - 32).
// Each half of 128 elements uses ql[64h..], qh[32h..], scales[8h..]: byte l of
// the half gives elements l, l+32, l+64, l+96.
#ifndef ORCD_QUANT_Q4_Q6_K_H_
#define ORCD_QUANT_Q4_Q6_K_H_

#include "common/q8_dot.h"

namespace orcd::quant {

struct Q6_K {
  static constexpr orcd_ggml_type kType = ORCD_TYPE_Q6_K;
  static constexpr const char* kName = "Q6_K";
  static constexpr int kElems = 256;
  static constexpr int kChunks = 32;  // chunk c: half c/16, byte pair l = 2(c%16), 2(c%16)+1
  static constexpr int kRunLen = 2;
  struct Block {
    uint8_t ql[128];
    uint8_t qh[64];
    int8_t scales[16];
    uint16_t d;
  };

  ORCD_QUANT_HD static constexpr int run_start(int c, int r) {
    return (c / 16) * 128 + r * 32 + 2 * (c % 16);
  }

  ORCD_QUANT_HD static void decode_chunk(const Block& b, int c, float v[kChunkValues]) {
    const int half = c / 16;
    const int l0 = 2 * (c % 16);
    const float d = fp16_to_f32(b.d);
    const uint8_t* ql = b.ql + 64 * half;
    const uint8_t* qh = b.qh + 32 * half;
    const int8_t* sc = b.scales + 8 * half + l0 / 16;
    for (int i = 0; i < 2; ++i) {
      const int l = l0 + i;
      const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      // ggml: d * sc[is] * q, evaluated left to right.
      v[0 + i] = d * static_cast<float>(sc[0]) * static_cast<float>(q1);
      v[2 + i] = d * static_cast<float>(sc[2]) * static_cast<float>(q2);
      v[4 + i] = d * static_cast<float>(sc[4]) * static_cast<float>(q3);
      v[6 + i] = d * static_cast<float>(sc[6]) * static_cast<float>(q4);
    }
  }

  // Part p: half h = p / 8, bytes l0 = 4(p%8) .. +3 of the half's ql / qh:
  // values l0..l0+3 of its four 32-value quarters (one scale each).
  static constexpr int kQ8Parts = 16;
  ORCD_QUANT_HD static float dot_q8(const Block& b, int part, const Q8x32* x) {
    const int half = part / 8;
    const int i = part % 8;  // activation int within each quarter
    const int l0 = 4 * i;
    const int ql_a = load_int_a2(b.ql + 64 * half + l0);
    const int ql_b = load_int_a2(b.ql + 64 * half + 32 + l0);
    const uint32_t qh = static_cast<uint32_t>(load_int_a2(b.qh + 32 * half + l0));
    const int u[4] = {low_nibbles(ql_a) | static_cast<int>((qh & 0x03030303u) << 4),
                      low_nibbles(ql_b) | static_cast<int>(((qh >> 2) & 0x03030303u) << 4),
                      high_nibbles(ql_a) | static_cast<int>(((qh >> 4) & 0x03030303u) << 4),
                      high_nibbles(ql_b) | static_cast<int>(((qh >> 6) & 0x03030303u) << 4)};
    const int8_t* sc = b.scales + 8 * half + l0 / 16;
    float sum = 0.0f;
    for (int k = 0; k < 4; ++k) {
      const Q8x32& xk = x[4 * half + k];
      const int xv = x_int(xk, i);
      sum += xk.d * static_cast<float>(sc[2 * k] * (dot4(u[k], xv, 0) - 32 * sum4(xv, 0)));
    }
    return fp16_to_f32(b.d) * sum;
  }
};
static_assert(sizeof(Q6_K::Block) == 210);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_Q4_Q6_K_H_
