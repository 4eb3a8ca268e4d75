// Q4_K: super-blocks of 256 = fp16 d, fp16 dmin, 8 pairs of 6-bit (scale, min)
// packed in 12 bytes (get_scale_min_k4), 128 bytes of nibbles; sub-block s of
// 32 elements decodes as x = d*scale_s * q - dmin*min_s.
#ifndef ORCD_QUANT_Q4_Q4_K_H_
#define ORCD_QUANT_Q4_Q4_K_H_

#include "common/block_codec.h"

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
};
static_assert(sizeof(Q4_K::Block) == 144);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_Q4_Q4_K_H_
