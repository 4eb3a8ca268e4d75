// Vector primitives of the CPU adapters, chosen once at start-up: AVX2+FMA+F16C
// where the CPU has them, portable C++ otherwise. The build never assumes them
// (no -mavx2): the same binary runs on any x86-64.
#ifndef ORCD_HOST_ENGINE_CPU_SIMD_H_
#define ORCD_HOST_ENGINE_CPU_SIMD_H_

#include <cstdint>

namespace orcd::engine::cpu {

struct SimdKernels {
  const char* name;  // "avx2" | "portable"
  float (*dot_f32)(const float* a, const float* b, int64_t n);
  float (*dot_f16)(const uint16_t* a, const float* b, int64_t n);
  void (*f16_to_f32)(const uint16_t* in, float* out, int64_t n);
  void (*bf16_to_f32)(const uint16_t* in, float* out, int64_t n);
  // Round to nearest even (ggml's F16C conversion).
  void (*f32_to_f16)(const float* in, uint16_t* out, int64_t n);
  // y += a * x
  void (*axpy_f32)(float a, const float* x, float* y, int64_t n);
  void (*axpy_f16)(float a, const uint16_t* x, float* y, int64_t n);
  // Many rows at once (attention's keys and values), row j at rows + j *
  // stride elements: out[j] = dot_f32 / dot_f16 (row j, b, n), and y += w[j] *
  // row j for j in order, with the bits of that many single calls (the rows
  // versions only save the calls and keep y and b in registers).
  void (*dot_f32_rows)(const float* rows, int64_t stride, int64_t n_rows, const float* b, int64_t n,
                       float* out);
  void (*dot_f16_rows)(const uint16_t* rows, int64_t stride, int64_t n_rows, const float* b,
                       int64_t n, float* out);
  void (*axpy_f32_rows)(const float* w, const float* rows, int64_t stride, int64_t n_rows, float* y,
                        int64_t n);
  void (*axpy_f16_rows)(const float* w, const uint16_t* rows, int64_t stride, int64_t n_rows,
                        float* y, int64_t n);
  // The same over q8_0 rows (ggml's block_q8_0: an f16 scale d and 32 int8
  // q, value d * q; n a multiple of 32), row j at rows + j * stride bytes.
  // A row's dot sums each block's q * b, times d, over the blocks in order.
  void (*dot_q8_0_rows)(const uint8_t* rows, int64_t stride, int64_t n_rows, const float* b,
                        int64_t n, float* out);
  void (*axpy_q8_0_rows)(const float* w, const uint8_t* rows, int64_t stride, int64_t n_rows,
                         float* y, int64_t n);
  // dot_f16_rows and axpy_f16_rows for the query heads that share one KV
  // head (grouped-query attention), each row read once for all of them:
  // out[h * out_stride + j] is dot_f16_rows' out[j] for query b + h * b_stride,
  // and y + h * y_stride takes axpy_f16_rows with weights w + h * w_stride,
  // for h < heads, with the bits of one rows call per head.
  void (*dot_f16_rows_heads)(const uint16_t* rows, int64_t stride, int64_t n_rows, const float* b,
                             int64_t b_stride, int heads, int64_t n, float* out,
                             int64_t out_stride);
  void (*axpy_f16_rows_heads)(const float* w, int64_t w_stride, const uint16_t* rows,
                              int64_t stride, int64_t n_rows, int heads, float* y, int64_t y_stride,
                              int64_t n);
};

// n values (a multiple of 32) as q8_0 blocks, rounded as ggml's
// quantize_row_q8_0_ref: d = max |x| / 127, q = round(x / d), half away from zero.
void QuantizeRowQ8_0(const float* in, uint8_t* out, int64_t n);

const SimdKernels& Simd();

// Whether Simd() chose the AVX2 set (AVX2, FMA and F16C present): the CPU's
// other vector code (softmax_scores.h) picks its form by it.
bool SimdIsAvx2();

}  // namespace orcd::engine::cpu

#endif  // ORCD_HOST_ENGINE_CPU_SIMD_H_
