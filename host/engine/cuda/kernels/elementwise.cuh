// Elementwise kernels: ADD, MUL, SWIGLU, GELU, bias epilogues, logit softcap,
// learned-position ids. One thread per value, grid-stride.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_ELEMENTWISE_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_ELEMENTWISE_CUH_

#include "host/engine/cuda/kernels/common.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

__global__ void add_kernel(const float* a, const float* b, float* y, int64_t n) {
  ORCD_GRID_STRIDE(i, n) y[i] = a[i] + b[i];
}

__global__ void mul_kernel(const float* a, const float* b, float* y, int64_t n) {
  ORCD_GRID_STRIDE(i, n) y[i] = a[i] * b[i];
}

__global__ void swiglu_kernel(const float* gate, const float* up, int64_t in_stride, float* y,
                              int64_t f, int64_t n) {
  ORCD_GRID_STRIDE(i, n) {
    const int64_t t = i / f, c = i % f;
    y[i] = ::orcd::GatedActivation(ORCD_MOE_ACT_SWIGLU, gate[t * in_stride + c],
                                   up[t * in_stride + c], 0.0f, 0.0f);
  }
}

// The tanh approximation with ggml's limits (see cpu/gelu_adapter.cc).
__global__ void gelu_kernel(const float* x, float* y, int64_t n) {
  ORCD_GRID_STRIDE(i, n) {
    const float v = x[i];
    constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f;
    y[i] = v <= -10.0f  ? 0.0f
           : v >= 10.0f ? v
                        : 0.5f * v * (1.0f + tanhf(kSqrt2OverPi * v * (1.0f + 0.044715f * v * v)));
  }
}

__global__ void add_bias_kernel(float* y, const float* bias, int64_t width, int64_t y_stride,
                                int64_t n) {
  ORCD_GRID_STRIDE(i, n) y[(i / width) * y_stride + i % width] += bias[i % width];
}

__global__ void softcap_kernel(float* y, float cap, int64_t n) {
  ORCD_GRID_STRIDE(i, n) y[i] = cap * tanhf(y[i] / cap);
}

__global__ void to_half_kernel(const float* x, uint16_t* out, int64_t n, uint32_t type) {
  ORCD_GRID_STRIDE(i, n)
  out[i] = type == 30 ? ::orcd::f32_to_bf16(x[i]) : ::orcd::f32_to_fp16(x[i]);
}

__global__ void positions_kernel(int32_t* ids, const StepValues* step, int64_t n) {
  ORCD_GRID_STRIDE(i, n) ids[i] = static_cast<int32_t>(step->pos0 + i);
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ELEMENTWISE_CUH_
