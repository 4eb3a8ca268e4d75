// Activations rounded to 8 bits for the quant plugins' matvec_q8 (ABI 1.3,
// orcd_q8_x32): one warp per 32-value run, d = max|x| / 127 and
// q = nearest-even(x * (1 / d)), as the CPU reference in the tests computes.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_QUANTIZE_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_QUANTIZE_CUH_

#include "host/engine/cuda/kernels/common.cuh"
#include "host/engine/cuda/kernels/elementwise.cuh"
#include "orcd/plugin.h"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

constexpr int kQuantizeWarps = 8;

// One 32-value run, v this lane's value (every lane of the warp calls): the
// rounding quantize_q8_kernel does, shared with the kernels that round
// what they produce (ADD_RMS_NORM, SWIGLU).
__device__ __forceinline__ void quantize_run(float v, orcd_q8_x32* out) {
  const int lane = threadIdx.x % kWarp;
  const float d = warp_max(fabsf(v)) / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  out->qs[lane] = static_cast<int8_t>(rintf(v * id));
  if (lane == 0) out->d = d;
}

// One token's SWIGLU rounded as it is produced (the lowered SWIGLU_Q8): a
// warp per 32 outputs, y as swiglu_kernel writes it, q as quantize_q8_kernel.
__global__ void __launch_bounds__(kQuantizeWarps* kWarp)
    swiglu_q8_kernel(const float* gate, const float* up, float* y, orcd_q8_x32* q8,
                     int64_t n_runs) {
  const int lane = threadIdx.x % kWarp;
  for (int64_t run = static_cast<int64_t>(blockIdx.x) * kQuantizeWarps + threadIdx.x / kWarp;
       run < n_runs; run += static_cast<int64_t>(gridDim.x) * kQuantizeWarps) {
    const int64_t c = run * 32 + lane;
    const float v = ::orcd::GatedActivation(ORCD_MOE_ACT_SWIGLU, gate[c], up[c], 0.0f, 0.0f);
    y[c] = v;
    quantize_run(v, q8 + run);
  }
}

// Row r of x (x_stride floats apart) -> runs [r * runs_per_row, +runs_per_row).
__global__ void __launch_bounds__(kQuantizeWarps* kWarp)
    quantize_q8_kernel(const float* x, int64_t x_stride, orcd_q8_x32* out, int64_t runs_per_row,
                       int64_t n_runs) {
  const int lane = threadIdx.x % kWarp;
  for (int64_t run = static_cast<int64_t>(blockIdx.x) * kQuantizeWarps + threadIdx.x / kWarp;
       run < n_runs; run += static_cast<int64_t>(gridDim.x) * kQuantizeWarps) {
    const int64_t row = run / runs_per_row;
    quantize_run(x[row * x_stride + (run % runs_per_row) * 32 + lane], out + run);
  }
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_QUANTIZE_CUH_
