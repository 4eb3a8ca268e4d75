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

// Reductions and scans over the CTA's per-thread values: every thread writes
// its value to shared memory, then warp 0 combines them, lane l taking 32
// values with conflict-free reads and the lanes' results combined by
// shuffles. No thread walks the 1,024 values alone, and a reduction costs two
// barriers and five shuffles of one warp (the emulated device pays per
// barrier and shuffle, so a shuffle tree in every warp would cost it five
// times as much). blockDim.x a multiple of 32; every thread calls.

// Exclusive prefix of the per-thread values in thread order, into
// part[threadIdx.x]; returns the total. Lane l of warp 0 scans threads
// [32 l, 32 l + 32) in order (stored one slot apart per 32, so the lanes'
// reads fall in distinct banks), the lanes' totals are scanned by shuffles,
// and each lane adds its base to its threads' prefixes.
__device__ __forceinline__ double exclusive_prefix(double* part, double mine) {
  __shared__ double padded[kRowThreadsMax + kRowThreadsMax / kWarp];
  __shared__ double total;
  const unsigned t = threadIdx.x;
  padded[t + t / kWarp] = mine;
  __syncthreads();
  if (t < kWarp) {
    const unsigned segments = blockDim.x / kWarp;
    double* seg = padded + t * (kWarp + 1);  // threads [32 t, 32 t + 32)
    double run = 0.0;
    if (t < segments) {
      for (unsigned k = 0; k < kWarp; ++k) {
        const double v = seg[k];
        seg[k] = run;
        run += v;
      }
    }
    double inclusive = run;  // of the lanes' totals, in lane order
    for (unsigned offset = 1; offset < kWarp; offset <<= 1) {
      const double below = __shfl_up_sync(0xFFFFFFFFu, inclusive, offset);
      if (t >= offset) inclusive += below;
    }
    const double base = __shfl_up_sync(0xFFFFFFFFu, inclusive, 1u);
    if (t > 0 && t < segments) {
      for (unsigned k = 0; k < kWarp; ++k) seg[k] += base;
    }
    if (t == segments - 1) total = inclusive;
  }
  __syncthreads();
  part[t] = padded[t + t / kWarp];
  const double result = total;
  __syncthreads();  // padded and total are reused by the next call
  return result;
}

// The largest of the per-thread values (NaN never wins; -inf when every
// value is NaN). Every thread calls.
__device__ __forceinline__ float row_max(float mine) {
  __shared__ float values[kRowThreadsMax];
  __shared__ float result;
  values[threadIdx.x] = isnan(mine) ? -INFINITY : mine;
  __syncthreads();
  if (threadIdx.x < kWarp) {
    float v = -INFINITY;
    for (unsigned k = threadIdx.x; k < blockDim.x; k += kWarp) v = fmaxf(v, values[k]);
    v = warp_max(v);
    if (threadIdx.x == 0) result = v;
  }
  __syncthreads();
  const float r = result;
  __syncthreads();  // values and result are reused by the next call
  return r;
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ROW_BLOCK_CUH_
