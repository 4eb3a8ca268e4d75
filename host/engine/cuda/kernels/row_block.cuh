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

// Thread t's strided share t, t + blockDim.x, ... of [0, n): a warp's reads
// of a row are contiguous (coalesced). For passes whose result does not
// depend on the order the values are visited in (a max, an argmax with its
// tie rule, a compaction that is sorted afterwards).
#define ORCD_ROW_STRIDE(i, n) for (int64_t i = threadIdx.x; i < (n); i += blockDim.x)

// The warp's inclusive prefix of v, lane order (log2(32) shuffles).
__device__ __forceinline__ double warp_inclusive_prefix(double v) {
  const unsigned lane = threadIdx.x % kWarp;
  for (unsigned offset = 1; offset < kWarp; offset <<= 1) {
    const double below = __shfl_up_sync(0xFFFFFFFFu, v, offset);
    if (lane >= offset) v += below;
  }
  return v;
}

// Exclusive prefix of the per-thread values in thread order, into
// part[threadIdx.x]; returns the total. Warp scans by shuffles, then one
// warp scans the warps' totals: no thread walks the 1,024 values alone.
// blockDim.x a multiple of 32; every thread calls.
__device__ __forceinline__ double exclusive_prefix(double* part, double mine) {
  __shared__ double warp_base[kRowThreadsMax / kWarp];
  __shared__ double total;
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const unsigned warps = blockDim.x / kWarp;
  const double inclusive = warp_inclusive_prefix(mine);
  const double below = __shfl_up_sync(0xFFFFFFFFu, inclusive, 1u);  // lane 0: its own
  if (lane == kWarp - 1) warp_base[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const double w = lane < warps ? warp_base[lane] : 0.0;
    const double w_inclusive = warp_inclusive_prefix(w);
    const double w_below = __shfl_up_sync(0xFFFFFFFFu, w_inclusive, 1u);
    if (lane < warps) warp_base[lane] = lane == 0 ? 0.0 : w_below;
    if (lane == warps - 1) total = w_inclusive;
  }
  __syncthreads();
  part[threadIdx.x] = lane == 0 ? warp_base[warp] : warp_base[warp] + below;
  __syncthreads();  // part and total read by every thread before they are reused
  return total;
}

// The largest of the per-thread values (NaN never wins; -inf when every
// value is NaN), by shuffles. Every thread calls.
__device__ __forceinline__ float row_max(float mine) {
  __shared__ float warp_best[kRowThreadsMax / kWarp];
  __shared__ float result;
  const unsigned lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  float v = warp_max(isnan(mine) ? -INFINITY : mine);  // fmaxf never returns NaN here
  if (lane == 0) warp_best[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_max(lane < blockDim.x / kWarp ? warp_best[lane] : -INFINITY);
    if (lane == 0) result = v;
  }
  __syncthreads();
  return result;
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ROW_BLOCK_CUH_
