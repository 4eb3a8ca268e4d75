// Q4_0: blocks of 32 = fp16 scale d + 16 bytes of 4-bit quants; x = (q - 8) * d.
#ifndef ORCD_QUANT_Q4_Q4_0_H_
#define ORCD_QUANT_Q4_Q4_0_H_

#include "common/q8_dot.h"

namespace orcd::quant {

struct Q4_0 : NibblePairs32Layout {
  static constexpr orcd_ggml_type kType = ORCD_TYPE_Q4_0;
  static constexpr const char* kName = "Q4_0";
  struct Block {
    uint16_t d;
    uint8_t qs[16];
  };

  ORCD_QUANT_HD static void decode_chunk(const Block& b, int c, float v[kChunkValues]) {
    const float d = fp16_to_f32(b.d);
    for (int i = 0; i < 4; ++i) {
      const int q = b.qs[4 * c + i];
      v[i] = static_cast<float>((q & 0x0F) - 8) * d;
      v[4 + i] = static_cast<float>((q >> 4) - 8) * d;
    }
  }

  static constexpr int kQ8Parts = 4;
  ORCD_QUANT_HD static float dot_q8(const Block& b, int part, const Q8x32* x) {
    const int q = load_int_a2(b.qs + 4 * part);
    const NibblePairSums s = nibble_pair_sums(low_nibbles(q), high_nibbles(q), x[0], part);
    return fp16_to_f32(b.d) * x[0].d * static_cast<float>(s.qx - 8 * s.x);
  }
};
static_assert(sizeof(Q4_0::Block) == 18);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_Q4_Q4_0_H_
