// RMS_NORM (whole rows or per-head groups) and LAYER_NORM: one CTA per group,
// f32 sums reduced over the CTA.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_NORM_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_NORM_CUH_

#include "host/engine/cuda/kernels/common.cuh"
#include "host/engine/cuda/kernels/quantize.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

// Group blockIdx.x (+ gridDim.x ...) of `group` values; gamma is [group] or null.
__global__ void __launch_bounds__(kThreads)
    rms_norm_kernel(const float* x, const float* gamma, float* y, int64_t groups, int64_t group,
                    float eps) {
  __shared__ float scratch[kWarp];
  for (int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    const float* xg = x + g * group;
    float* yg = y + g * group;
    float sum = 0.0f;
    for (int64_t i = threadIdx.x; i < group; i += blockDim.x) sum += xg[i] * xg[i];
    sum = block_sum(sum, scratch);
    const float scale = 1.0f / sqrtf(sum / static_cast<float>(group) + eps);
    for (int64_t i = threadIdx.x; i < group; i += blockDim.x)
      yg[i] = xg[i] * scale * (gamma ? gamma[i] : 1.0f);
  }
}

// The lowered ADD_RMS_NORM: s = a + b (s may be a) stored, and y its RMS_NORM
// over whole rows, with rms_norm_kernel's per-thread sums: the same bits as
// add_kernel then rms_norm_kernel, one launch and one read of the row fewer.
// With q8 (width % 32 == 0), y's rows are also rounded to 8 bits as
// quantize_q8_kernel rounds them: the next MATMUL's input, one launch fewer.
__global__ void __launch_bounds__(kThreads)
    add_rms_norm_kernel(const float* a, const float* b, float* s, const float* gamma, float* y,
                        orcd_q8_x32* q8, int64_t rows, int64_t width, float eps) {
  __shared__ float scratch[kWarp];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const int64_t base = r * width;
    float sum = 0.0f;
    for (int64_t i = threadIdx.x; i < width; i += blockDim.x) {
      const float v = a[base + i] + b[base + i];
      s[base + i] = v;  // read back below by this thread only
      sum += v * v;
    }
    sum = block_sum(sum, scratch);
    const float scale = 1.0f / sqrtf(sum / static_cast<float>(width) + eps);
    for (int64_t i = threadIdx.x; i < width; i += blockDim.x)
      y[base + i] = s[base + i] * scale * (gamma ? gamma[i] : 1.0f);
    if (q8 == nullptr) continue;
    __syncthreads();  // y written by every thread of the CTA
    const int64_t runs = width / 32;
    for (int64_t run = threadIdx.x / kWarp; run < runs; run += blockDim.x / kWarp)
      quantize_run(y[base + run * 32 + threadIdx.x % kWarp], q8 + r * runs + run);
    __syncthreads();  // the next row's first loop may not overtake this one's reads
  }
}

__global__ void __launch_bounds__(kThreads)
    layer_norm_kernel(const float* x, const float* gamma, const float* beta, float* y, int64_t rows,
                      int64_t width, float eps) {
  __shared__ float scratch[kWarp];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * width;
    float* yr = y + r * width;
    float sum = 0.0f;
    for (int64_t i = threadIdx.x; i < width; i += blockDim.x) sum += xr[i];
    const float mean = block_sum(sum, scratch) / static_cast<float>(width);
    float var = 0.0f;
    for (int64_t i = threadIdx.x; i < width; i += blockDim.x)
      var += (xr[i] - mean) * (xr[i] - mean);
    const float scale = 1.0f / sqrtf(block_sum(var, scratch) / static_cast<float>(width) + eps);
    for (int64_t i = threadIdx.x; i < width; i += blockDim.x) {
      const float v = (xr[i] - mean) * scale;
      yr[i] = gamma ? v * gamma[i] + beta[i] : v;
    }
  }
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_NORM_CUH_
