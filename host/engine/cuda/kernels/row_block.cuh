// Whole-CTA operations over one row for the row kernels (the sampler, the
// log-probabilities): each thread's contiguous share of the row, the
// candidates' order, and reductions whose result every thread gets, combined
// in thread order (the same sums whatever the timing). Device code only.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_ROW_BLOCK_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_ROW_BLOCK_CUH_

#include "host/engine/cuda/kernels/common.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

// The most threads a row kernel runs per CTA (its shared arrays' size).
constexpr int kRowThreadsMax = 1024;

// Whether candidate a is ordered before b: larger key, then lower id.
__device__ __forceinline__ bool before(float ka, int32_t ia, float kb, int32_t ib) {
  return ka > kb || (ka == kb && ia < ib);
}

// Thread t's contiguous share [begin, end) of [0, n).
__device__ __forceinline__ void chunk(int64_t n, int64_t* begin, int64_t* end) {
  const int64_t per = (n + blockDim.x - 1) / blockDim.x;
  *begin = threadIdx.x * per < n ? threadIdx.x * per : n;
  *end = *begin + per < n ? *begin + per : n;
}

// Exclusive prefix of the per-thread values in `part` (in place, in thread
// order, by thread 0); returns the total. Every thread calls.
__device__ __forceinline__ double exclusive_prefix(double* part, double mine) {
  __shared__ double total;
  part[threadIdx.x] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    double acc = 0.0;
    for (unsigned t = 0; t < blockDim.x; ++t) {
      const double v = part[t];
      part[t] = acc;
      acc += v;
    }
    total = acc;
  }
  __syncthreads();
  return total;
}

// The largest of the per-thread values (NaN never wins). Every thread calls.
__device__ __forceinline__ float block_max(double* part, float mine) {
  __shared__ float result;
  part[threadIdx.x] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    double best = -INFINITY;
    for (unsigned t = 0; t < blockDim.x; ++t) best = part[t] > best ? part[t] : best;
    result = static_cast<float>(best);
  }
  __syncthreads();
  return result;
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ROW_BLOCK_CUH_
