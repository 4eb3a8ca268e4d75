// Elementwise kernels: ADD, MUL, SWIGLU / GEGLU, GELU, bias epilogues, logit softcap,
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

__global__ void glu_kernel(const float* gate, const float* up, int64_t in_stride, float* y,
                           int64_t f, int64_t n, uint32_t activation) {
  ORCD_GRID_STRIDE(i, n) {
    const int64_t t = i / f, c = i % f;
    y[i] = ::orcd::GatedActivation(activation, gate[t * in_stride + c], up[t * in_stride + c], 0.0f,
                                   0.0f);
  }
}

// ggml's tanh approximation (see gated_activation.h).
__global__ void gelu_kernel(const float* x, float* y, int64_t n) {
  ORCD_GRID_STRIDE(i, n) y[i] = ::orcd::GeluTanh(x[i]);
}

__global__ void add_bias_kernel(float* y, const float* bias, int64_t width, int64_t y_stride,
                                int64_t n) {
  ORCD_GRID_STRIDE(i, n) y[(i / width) * y_stride + i % width] += bias[i % width];
}

__global__ void scale_kernel(float* y, float s, int64_t n) { ORCD_GRID_STRIDE(i, n) y[i] *= s; }

__global__ void softcap_kernel(float* y, float cap, int64_t n) {
  ORCD_GRID_STRIDE(i, n) y[i] = cap * tanhf(y[i] / cap);
}

__global__ void to_half_kernel(const float* x, uint16_t* out, int64_t n, uint32_t type) {
  ORCD_GRID_STRIDE(i, n)
  out[i] = type == 30 ? ::orcd::f32_to_bf16(x[i]) : ::orcd::f32_to_fp16(x[i]);
}

__global__ void positions_kernel(int32_t* ids, const StepValues* step, int64_t n) {
  ORCD_GRID_STRIDE(i, n) ids[i] = step->rows[i].position;
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ELEMENTWISE_CUH_
