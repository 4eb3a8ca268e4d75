// Greedy decoding on the device: the index of the largest logit (ties: the
// lowest index, like the CPU sampler), so only a token id crosses to the
// host. Two launches: kArgmaxParts CTAs each reduce a contiguous slice to its
// best (value, index), then one CTA reduces those. One CTA over the whole
// vocabulary took 70 us per token for Qwen2.5's 151,936 logits on an H100
// (one SM's bandwidth); the order of comparisons cannot change the result,
// since "larger value, then lower index" is a total order on candidates.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_ARGMAX_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_ARGMAX_CUH_

#include "host/engine/cuda/kernels/common.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

constexpr int kArgmaxThreads = 256;
constexpr int kArgmaxParts = static_cast<int>(kArgmaxPartsMax);

// A candidate's index is -1 for "none": it loses to every real one.
__device__ __forceinline__ bool better(float v, int32_t i, float best_v, int32_t best_i) {
  if (i < 0) return false;
  if (best_i < 0) return true;
  return v > best_v || (v == best_v && i < best_i);
}

// The best of blockDim.x (a power of two) candidates in shared memory, left
// in slot 0.
__device__ __forceinline__ void reduce_best(float* values, int32_t* ids) {
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      const unsigned o = threadIdx.x + half;
      if (better(values[o], ids[o], values[threadIdx.x], ids[threadIdx.x])) {
        values[threadIdx.x] = values[o];
        ids[threadIdx.x] = ids[o];
      }
    }
    __syncthreads();
  }
}

// CTA b: the best of x[b * chunk, min(n, (b + 1) * chunk)).
__global__ void __launch_bounds__(kArgmaxThreads)
    argmax_part_kernel(const float* x, int64_t n, int64_t chunk, float* part_values,
                       int32_t* part_ids) {
  __shared__ float values[kArgmaxThreads];
  __shared__ int32_t ids[kArgmaxThreads];
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * chunk;
  const int64_t end = begin + chunk < n ? begin + chunk : n;
  float best_v = -INFINITY;
  int32_t best_i = -1;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    if (better(x[i], static_cast<int32_t>(i), best_v, best_i)) {
      best_v = x[i];
      best_i = static_cast<int32_t>(i);
    }
  }
  values[threadIdx.x] = best_v;
  ids[threadIdx.x] = best_i;
  reduce_best(values, ids);
  if (threadIdx.x == 0) {
    part_values[blockIdx.x] = values[0];
    part_ids[blockIdx.x] = ids[0];
  }
}

// One CTA of kArgmaxParts threads: the best of `parts` slices' bests.
__global__ void __launch_bounds__(kArgmaxParts)
    argmax_combine_kernel(const float* part_values, const int32_t* part_ids, int64_t parts,
                          int32_t* out) {
  __shared__ float values[kArgmaxParts];
  __shared__ int32_t ids[kArgmaxParts];
  const bool real = threadIdx.x < parts;
  values[threadIdx.x] = real ? part_values[threadIdx.x] : -INFINITY;
  ids[threadIdx.x] = real ? part_ids[threadIdx.x] : -1;
  reduce_best(values, ids);
  if (threadIdx.x == 0) *out = ids[0] < 0 ? 0 : ids[0];
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ARGMAX_CUH_
