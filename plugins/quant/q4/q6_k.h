// Q6_K: super-blocks of 256 = 128 bytes ql (low 4 bits), 64 bytes qh (high 2
// bits), 16 signed 8-bit scales (one per 16 elements), fp16 d; x = d*scale*(q - 32).
// Each half of 128 elements uses ql[64h..], qh[32h..], scales[8h..]: byte l of
// the half gives elements l, l+32, l+64, l+96.
#ifndef ORCD_QUANT_Q4_Q6_K_H_
#define ORCD_QUANT_Q4_Q6_K_H_

#include "common/block_codec.h"

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
};
static_assert(sizeof(Q6_K::Block) == 210);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_Q4_Q6_K_H_
