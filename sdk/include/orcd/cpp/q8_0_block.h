// One block of ggml's Q8_0 (an f16 scale and 32 int8) rounded as ggml's
// quantize_row_q8_0_ref does: d = max |x| / 127, q = round(x / d), halves away
// from zero. Shared by the quant plugin's Q8_0 weights and the host's q8_0 KV
// cache (CPU, and the CUDA kernels through nvcc), so that every Q8_0 block
// orcd writes has llama.cpp's bits.
#ifndef ORCD_CPP_Q8_0_BLOCK_H_
#define ORCD_CPP_Q8_0_BLOCK_H_

#include <math.h>
#include <stdint.h>

#include "orcd/cpp/half.h"

#if defined(__CUDACC__)
#define ORCD_Q8_0_HD __host__ __device__
#else
#define ORCD_Q8_0_HD
#endif

namespace orcd {

inline constexpr int kQ8_0BlockElems = 32;

// A block's scale and the factor that rounds x to it.
struct Q8_0Scale {
  float d = 0.0f;    // max |x| / 127, before its f16 rounding
  float inv = 0.0f;  // 1 / d, or 0 for an all-zero block
};

ORCD_Q8_0_HD inline Q8_0Scale q8_0_scale(float amax) {
  const float d = amax / 127.0f;
  return {d, d != 0.0f ? 1.0f / d : 0.0f};
}

// x's 8-bit value at a block's scale (`inv`: Q8_0Scale::inv).
ORCD_Q8_0_HD inline int8_t q8_0_round(float x, float inv) {
  return static_cast<int8_t>(roundf(x * inv));
}

// x[0..31] into *d (f16 bits) and q[0..31].
ORCD_Q8_0_HD inline void quantize_q8_0_block(const float* x, uint16_t* d, int8_t* q) {
  float amax = 0.0f;
  for (int j = 0; j < kQ8_0BlockElems; ++j) amax = fmaxf(amax, fabsf(x[j]));
  const Q8_0Scale s = q8_0_scale(amax);
  *d = f32_to_fp16(s.d);
  for (int j = 0; j < kQ8_0BlockElems; ++j) q[j] = q8_0_round(x[j], s.inv);
}

}  // namespace orcd

#undef ORCD_Q8_0_HD

#endif  // ORCD_CPP_Q8_0_BLOCK_H_
