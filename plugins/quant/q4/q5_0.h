// Q5_0: blocks of 32 = fp16 scale d, 32 high bits qh (bit e = bit 4 of element e),
// 16 bytes of low nibbles; x = (q - 16) * d.
#ifndef ORCD_QUANT_Q4_Q5_0_H_
#define ORCD_QUANT_Q4_Q5_0_H_

#include "common/q8_dot.h"

namespace orcd::quant {

struct Q5_0 : NibblePairs32Layout {
  static constexpr orcd_ggml_type kType = ORCD_TYPE_Q5_0;
  static constexpr const char* kName = "Q5_0";
  struct Block {
    uint16_t d;
    uint8_t qh[4];
    uint8_t qs[16];
  };

  ORCD_QUANT_HD static void decode_chunk(const Block& b, int c, float v[kChunkValues]) {
    const float d = fp16_to_f32(b.d);
    const uint32_t qh = load_le32(b.qh);
    for (int i = 0; i < 4; ++i) {
      const int j = 4 * c + i;
      const int q = b.qs[j];
      const int lo = (q & 0x0F) | static_cast<int>(((qh >> j) & 1u) << 4);
      const int hi = (q >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
      v[i] = static_cast<float>(lo - 16) * d;
      v[4 + i] = static_cast<float>(hi - 16) * d;
    }
  }

  static constexpr int kQ8Parts = 4;
  ORCD_QUANT_HD static float dot_q8(const Block& b, int part, const Q8x32* x) {
    const NibblePairSums s = five_bit_pair_sums(b.qs, b.qh, x[0], part);
    return fp16_to_f32(b.d) * x[0].d * static_cast<float>(s.qx - 16 * s.x);
  }
};
static_assert(sizeof(Q5_0::Block) == 22);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_Q4_Q5_0_H_
