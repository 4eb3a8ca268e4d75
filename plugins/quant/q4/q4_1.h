// Q4_1: blocks of 32 = fp16 scale d, fp16 min m + 16 bytes of 4-bit quants; x = q * d + m.
#ifndef ORCD_QUANT_Q4_Q4_1_H_
#define ORCD_QUANT_Q4_Q4_1_H_

#include "common/q8_dot.h"

namespace orcd::quant {

struct Q4_1 : NibblePairs32Layout {
  static constexpr orcd_ggml_type kType = ORCD_TYPE_Q4_1;
  static constexpr const char* kName = "Q4_1";
  struct Block {
    uint16_t d;
    uint16_t m;
    uint8_t qs[16];
  };

  ORCD_QUANT_HD static void decode_chunk(const Block& b, int c, float v[kChunkValues]) {
    const float d = fp16_to_f32(b.d);
    const float m = fp16_to_f32(b.m);
    for (int i = 0; i < 4; ++i) {
      const int q = b.qs[4 * c + i];
      v[i] = static_cast<float>(q & 0x0F) * d + m;
      v[4 + i] = static_cast<float>(q >> 4) * d + m;
    }
  }

  static constexpr int kQ8Parts = 4;
  ORCD_QUANT_HD static float dot_q8(const Block& b, int part, const Q8x32* x) {
    const int q = load_int_a2(b.qs + 4 * part);
    const NibblePairSums s = nibble_pair_sums(low_nibbles(q), high_nibbles(q), x[0], part);
    return x[0].d * (fp16_to_f32(b.d) * static_cast<float>(s.qx) +
                     fp16_to_f32(b.m) * static_cast<float>(s.x));
  }
};
static_assert(sizeof(Q4_1::Block) == 20);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_Q4_Q4_1_H_
