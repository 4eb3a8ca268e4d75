// Q4_K: super-blocks of 256 = fp16 d, fp16 dmin, 8 pairs of 6-bit (scale, min)
// packed in 12 bytes (get_scale_min_k4), 128 bytes of nibbles; sub-block s of
// 32 elements decodes as x = d*scale_s * q - dmin*min_s.
#ifndef ORCD_QUANT_Q4_Q4_K_H_
#define ORCD_QUANT_Q4_Q4_K_H_

#include "common/q8_dot.h"

namespace orcd::quant {

struct Q4_K : KQuantNibbleLayout {
  static constexpr orcd_ggml_type kType = ORCD_TYPE_Q4_K;
  static constexpr const char* kName = "Q4_K";
  struct Block {
    uint16_t d;
    uint16_t dmin;
    uint8_t scales[12];
    uint8_t qs[128];
  };

  ORCD_QUANT_HD static void decode_chunk(const Block& b, int c, float v[kChunkValues]) {
    const int group = c / 8;  // 64 elements: sub-blocks 2*group (low nibbles) and 2*group+1
    const float d = fp16_to_f32(b.d);
    const float dmin = fp16_to_f32(b.dmin);
    uint8_t sc, m;
    get_scale_min_k4(2 * group, b.scales, &sc, &m);
    const float d1 = d * sc;
    const float m1 = dmin * m;
    get_scale_min_k4(2 * group + 1, b.scales, &sc, &m);
    const float d2 = d * sc;
    const float m2 = dmin * m;
    const uint8_t* q = b.qs + 32 * group + 4 * (c % 8);
    for (int i = 0; i < 4; ++i) {
      v[i] = d1 * static_cast<float>(q[i] & 0xF) - m1;
      v[4 + i] = d2 * static_cast<float>(q[i] >> 4) - m2;
    }
  }

  // Part p: group g = p / 4, bytes 32g + 8(p%4) .. +7: values 8(p%4)..+7 of
  // sub-blocks 2g (low nibbles) and 2g + 1 (high nibbles).
  static constexpr int kQ8Parts = 16;
  ORCD_QUANT_HD static float dot_q8(const Block& b, int part, const Q8x32* x) {
    const int group = part / 4;
    const int i = 2 * (part % 4);  // first activation int of the sub-block
    const int q0 = load_int_a2(b.qs + 32 * group + 4 * i);
    const int q1 = load_int_a2(b.qs + 32 * group + 4 * i + 4);
    const Q8x32& xl = x[2 * group];
    const Q8x32& xh = x[2 * group + 1];
    const int xl0 = x_int(xl, i), xl1 = x_int(xl, i + 1);
    const int xh0 = x_int(xh, i), xh1 = x_int(xh, i + 1);
    const int dot_l = dot4(low_nibbles(q1), xl1, dot4(low_nibbles(q0), xl0, 0));
    const int dot_h = dot4(high_nibbles(q1), xh1, dot4(high_nibbles(q0), xh0, 0));
    uint8_t sc_l, m_l, sc_h, m_h;
    get_scale_min_k4(2 * group, b.scales, &sc_l, &m_l);
    get_scale_min_k4(2 * group + 1, b.scales, &sc_h, &m_h);
    const float scaled =
        xl.d * static_cast<float>(sc_l * dot_l) + xh.d * static_cast<float>(sc_h * dot_h);
    const float mins = xl.d * static_cast<float>(m_l * sum4(xl1, sum4(xl0, 0))) +
                       xh.d * static_cast<float>(m_h * sum4(xh1, sum4(xh0, 0)));
    return fp16_to_f32(b.d) * scaled - fp16_to_f32(b.dmin) * mins;
  }
};
static_assert(sizeof(Q4_K::Block) == 144);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_Q4_Q4_K_H_
