// Q8_0: blocks of 32 = fp16 scale d + 32 signed bytes; x = q * d.
#ifndef ORCD_QUANT_Q4_Q8_0_H_
#define ORCD_QUANT_Q4_Q8_0_H_

#include "common/q8_dot.h"

namespace orcd::quant {

struct Q8_0 {
  static constexpr orcd_ggml_type kType = ORCD_TYPE_Q8_0;
  static constexpr const char* kName = "Q8_0";
  static constexpr int kElems = 32;
  static constexpr int kChunks = 4;  // chunk c = elements 8c..8c+7
  static constexpr int kRunLen = 8;
  struct Block {
    uint16_t d;
    int8_t qs[32];
  };

  ORCD_QUANT_HD static constexpr int run_start(int c, int /*r*/) { return 8 * c; }

  ORCD_QUANT_HD static void decode_chunk(const Block& b, int c, float v[kChunkValues]) {
    const float d = fp16_to_f32(b.d);
    for (int i = 0; i < 8; ++i) v[i] = static_cast<float>(b.qs[8 * c + i]) * d;
  }

  // Part p: values 8p..8p+7.
  static constexpr int kQ8Parts = 4;
  ORCD_QUANT_HD static float dot_q8(const Block& b, int part, const Q8x32* x) {
    const int8_t* q = b.qs + 8 * part;
    const int sum = dot4(load_int_a2(q + 4), x_int(x[0], 2 * part + 1),
                         dot4(load_int_a2(q), x_int(x[0], 2 * part), 0));
    return fp16_to_f32(b.d) * x[0].d * static_cast<float>(sum);
  }
};
static_assert(sizeof(Q8_0::Block) == 34);

}  // namespace orcd::quant

#endif  // ORCD_QUANT_Q4_Q8_0_H_
