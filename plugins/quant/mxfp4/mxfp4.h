// MXFP4 (ggml type 39): blocks of 32 = one e8m0 exponent byte + 16 bytes of
// 4-bit E2M1 codes (low nibbles elements 0..15, high nibbles 16..31);
// x = kvalues_mxfp4[code] * 2^(e - 128), ggml's "half" e8m0 convention with
// the E2M1 values doubled to integers.
#ifndef ORCD_QUANT_MXFP4_MXFP4_H_
#define ORCD_QUANT_MXFP4_MXFP4_H_

#include "common/q8_dot.h"

namespace orcd::quant {

// E2M1 code -> value times two, i.e. ggml's kvalues_mxfp4
// {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}, computed rather
// than looked up so device code needs no table in local memory.
ORCD_QUANT_HD int mxfp4_value(int code) {
  const int m = code & 7;
  const int magnitude = m < 2 ? m : (2 + (m & 1)) << ((m >> 1) - 1);
  return (code & 8) ? -magnitude : magnitude;
}

// ggml_e8m0_to_fp32_half: 2^(e - 128) as a float (0.5 * 2^(e - 127)), exact.
ORCD_QUANT_HD float e8m0_to_f32_half(uint8_t e) {
  const uint32_t bits = e < 2 ? (0x00200000u << e) : (static_cast<uint32_t>(e - 1) << 23);
  return bits_to_f32(bits);
}

struct MXFP4 : NibblePairs32Layout {
  static constexpr orcd_ggml_type kType = ORCD_TYPE_MXFP4;
  static constexpr const char* kName = "MXFP4";
  struct Block {
    uint8_t e;
    uint8_t qs[16];
  };

  ORCD_QUANT_HD static void decode_chunk(const Block& b, int c, float v[kChunkValues]) {
    const float d = e8m0_to_f32_half(b.e);
    for (int i = 0; i < 4; ++i) {
      const int q = b.qs[4 * c + i];
      v[i] = static_cast<float>(mxfp4_value(q & 0x0F)) * d;
      v[4 + i] = static_cast<float>(mxfp4_value(q >> 4)) * d;
    }
  }

  // Part p: bytes 4p..4p+3 (17-byte blocks: byte loads), each code replaced
  // by its doubled E2M1 value as a signed byte.
  static constexpr int kQ8Parts = 4;
  ORCD_QUANT_HD static float dot_q8(const Block& b, int part, const Q8x32* x) {
    uint32_t lo = 0, hi = 0;
    for (int i = 0; i < 4; ++i) {
      const int q = b.qs[4 * part + i];
      lo |= static_cast<uint32_t>(static_cast<uint8_t>(mxfp4_value(q & 0x0F))) << (8 * i);
      hi |= static_cast<uint32_t>(static_cast<uint8_t>(mxfp4_value(q >> 4))) << (8 * i);
    }
    const int sum = dot4(static_cast<int>(hi), x_int(x[0], 4 + part),
                         dot4(static_cast<int>(lo), x_int(x[0], part), 0));
    return e8m0_to_f32_half(b.e) * x[0].d * static_cast<float>(sum);
  }
};
static_assert(sizeof(MXFP4::Block) == 17);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_MXFP4_MXFP4_H_
