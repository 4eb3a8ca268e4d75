// Q5_K: Q4_K plus 32 bytes qh holding bit 4 of every quant: bit 2g of qh[l] for
// element l of group g's low half, bit 2g+1 for its high half.
#ifndef ORCD_QUANT_Q4_Q5_K_H_
#define ORCD_QUANT_Q4_Q5_K_H_

#include "common/q8_dot.h"

namespace orcd::quant {

struct Q5_K : KQuantNibbleLayout {
  static constexpr orcd_ggml_type kType = ORCD_TYPE_Q5_K;
  static constexpr const char* kName = "Q5_K";
  struct Block {
    uint16_t d;
    uint16_t dmin;
    uint8_t scales[12];
    uint8_t qh[32];
    uint8_t qs[128];
  };

  ORCD_QUANT_HD static void decode_chunk(const Block& b, int c, float v[kChunkValues]) {
    const int group = c / 8;
    const int l0 = 4 * (c % 8);
    const float d = fp16_to_f32(b.d);
    const float dmin = fp16_to_f32(b.dmin);
    uint8_t sc, m;
    get_scale_min_k4(2 * group, b.scales, &sc, &m);
    const float d1 = d * sc;
    const float m1 = dmin * m;
    get_scale_min_k4(2 * group + 1, b.scales, &sc, &m);
    const float d2 = d * sc;
    const float m2 = dmin * m;
    const int u1 = 1 << (2 * group);
    const int u2 = 2 << (2 * group);
    const uint8_t* ql = b.qs + 32 * group;
    for (int i = 0; i < 4; ++i) {
      const int l = l0 + i;
      v[i] = d1 * static_cast<float>((ql[l] & 0xF) + ((b.qh[l] & u1) ? 16 : 0)) - m1;
      v[4 + i] = d2 * static_cast<float>((ql[l] >> 4) + ((b.qh[l] & u2) ? 16 : 0)) - m2;
    }
  }

  // As Q4_K, with the fifth bits of value l of group g in bits 2g (low
  // nibbles) and 2g + 1 (high) of qh[l].
  static constexpr int kQ8Parts = 16;
  ORCD_QUANT_HD static float dot_q8(const Block& b, int part, const Q8x32* x) {
    const int group = part / 4;
    const int i = 2 * (part % 4);
    const Q8x32& xl = x[2 * group];
    const Q8x32& xh = x[2 * group + 1];
    int dot_l = 0, dot_h = 0, sum_l = 0, sum_h = 0;
    for (int k = 0; k < 2; ++k) {
      const int q = load_int_a2(b.qs + 32 * group + 4 * (i + k));
      const uint32_t qh = static_cast<uint32_t>(load_int_a2(b.qh + 4 * (i + k))) >> (2 * group);
      const int lo = low_nibbles(q) | static_cast<int>((qh & 0x01010101u) << 4);
      const int hi = high_nibbles(q) | static_cast<int>(((qh >> 1) & 0x01010101u) << 4);
      dot_l = dot4(lo, x_int(xl, i + k), dot_l);
      dot_h = dot4(hi, x_int(xh, i + k), dot_h);
      sum_l = sum4(x_int(xl, i + k), sum_l);
      sum_h = sum4(x_int(xh, i + k), sum_h);
    }
    uint8_t sc_l, m_l, sc_h, m_h;
    get_scale_min_k4(2 * group, b.scales, &sc_l, &m_l);
    get_scale_min_k4(2 * group + 1, b.scales, &sc_h, &m_h);
    const float scaled =
        xl.d * static_cast<float>(sc_l * dot_l) + xh.d * static_cast<float>(sc_h * dot_h);
    const float mins =
        xl.d * static_cast<float>(m_l * sum_l) + xh.d * static_cast<float>(m_h * sum_h);
    return fp16_to_f32(b.d) * scaled - fp16_to_f32(b.dmin) * mins;
  }
};
static_assert(sizeof(Q5_K::Block) == 176);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_Q4_Q5_K_H_
