// Greedy decoding on the device: the index of the largest logit (ties: the
// lowest index, like the CPU sampler), so only a token id crosses to the
// host. One CTA; each thread scans a stride, then a tree in shared memory.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_ARGMAX_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_ARGMAX_CUH_

#include "host/engine/cuda/kernels/common.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

constexpr int kArgmaxThreads = 1024;

__device__ __forceinline__ bool better(float v, int64_t i, float best_v, int64_t best_i) {
  return v > best_v || (v == best_v && i < best_i);
}

__global__ void __launch_bounds__(kArgmaxThreads)
    argmax_kernel(const float* x, int64_t n, int32_t* out) {
  __shared__ float values[kArgmaxThreads];
  __shared__ int64_t ids[kArgmaxThreads];
  float best_v = -INFINITY;
  int64_t best_i = n;  // "none": loses every tie
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    if (best_i == n || better(x[i], i, best_v, best_i)) {
      best_v = x[i];
      best_i = i;
    }
  }
  values[threadIdx.x] = best_v;
  ids[threadIdx.x] = best_i;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      const unsigned o = threadIdx.x + half;
      if (ids[o] != n && (ids[threadIdx.x] == n ||
                          better(values[o], ids[o], values[threadIdx.x], ids[threadIdx.x]))) {
        values[threadIdx.x] = values[o];
        ids[threadIdx.x] = ids[o];
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = static_cast<int32_t>(ids[0] == n ? 0 : ids[0]);
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ARGMAX_CUH_
