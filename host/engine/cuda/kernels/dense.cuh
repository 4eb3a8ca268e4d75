// Weights of the host's own types (F32, F16, BF16): row lookup and the
// matvec / batched matvec, optionally through expert ids kept in device
// memory (MoE). One warp per (output row, token); lanes stride the row.
// Correct and simple; prefill GEMMs belong to cuBLAS or tensor-core tiles.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_DENSE_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_DENSE_CUH_

#include "host/engine/cuda/kernels/common.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

constexpr int kDenseWarps = 8;

__global__ void dense_get_rows_kernel(uint32_t type, const void* w, int64_t cols,
                                      const int32_t* ids, float* out, int64_t n) {
  const int64_t elem = dense_size(type);
  ORCD_GRID_STRIDE(i, n) {
    const int64_t r = i / cols, c = i % cols;
    const char* row = static_cast<const char*>(w) + static_cast<int64_t>(ids[r]) * cols * elem;
    out[i] = load_dense(row, c, type);
  }
}

// CTA (blockIdx.x, blockIdx.y = i): rows blockIdx.x * 8 + warp of item i.
__global__ void __launch_bounds__(kDenseWarps* kWarp)
    dense_matvec_kernel(uint32_t type, const void* w, int64_t rows, int64_t cols,
                        int64_t expert_stride, const int32_t* ids, int64_t ids_per_x,
                        const float* x, int64_t x_stride, float* y, int64_t y_stride) {
  const int64_t i = blockIdx.y;
  const int64_t r = static_cast<int64_t>(blockIdx.x) * kDenseWarps + threadIdx.x / kWarp;
  if (r >= rows) return;  // whole warps leave: the shuffles stay full
  const int lane = threadIdx.x % kWarp;
  const int64_t expert = ids ? ids[i] : 0;
  const char* row =
      static_cast<const char*>(w) + (expert * expert_stride + r * cols) * dense_size(type);
  const float* xi = x + (i / ids_per_x) * x_stride;
  float acc = 0.0f;
  for (int64_t c = lane; c < cols; c += kWarp) acc = fmaf(load_dense(row, c, type), xi[c], acc);
  acc = warp_sum(acc);
  if (lane == 0) y[i * y_stride + r] = acc;
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_DENSE_CUH_
