// Q5_K: Q4_K plus 32 bytes qh holding bit 4 of every quant: bit 2g of qh[l] for
// element l of group g's low half, bit 2g+1 for its high half.
#ifndef ORCD_QUANT_Q4_Q5_K_H_
#define ORCD_QUANT_Q4_Q5_K_H_

#include "common/block_codec.h"

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
};
static_assert(sizeof(Q5_K::Block) == 176);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_Q4_Q5_K_H_
