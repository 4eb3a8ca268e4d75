// What every kernel of the CUDA backend shares: the build variant's
// namespace, thread counts and warp / block reductions. Device code only (no
// runtime calls): nvcc compiles it for the GPU, the host compiler for the
// emulated device (orcd/cpp/cuda_emulator.h, included first).
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_COMMON_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_COMMON_CUH_

#include <math.h>
#include <stdint.h>

#include "host/engine/cuda/op_kernels.h"
#include "orcd/cpp/cuda_launch.h"  // the CUDA runtime, or the emulator (ORCD_CUDA_EMULATED)
#include "orcd/cpp/gated_activation.h"
#include "orcd/cpp/half.h"

#if !defined(ORCD_CUDA_EMULATED)
#include <cuda_fp16.h>
#endif

// Each build gets its own namespace: the device and the emulated definitions
// of a kernel must not meet at link time.
#ifndef ORCD_CUDA_VARIANT
#error "define ORCD_CUDA_VARIANT (device | emulated) before including the kernels"
#endif

// for (i = this thread; i < n; i += every thread of the grid)
#define ORCD_GRID_STRIDE(i, n)                                                           \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

constexpr int kWarp = 32;
constexpr int kThreads = 256;  // elementwise and row kernels

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = kWarp / 2; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int offset = kWarp / 2; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, offset));
  return v;
}

// Sum over the CTA (blockDim.x a multiple of 32, every thread calls).
// `scratch` holds 32 floats of shared memory.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  v = warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < static_cast<int>(blockDim.x / kWarp) ? scratch[lane] : 0.0f;
  v = warp_sum(v);
  __syncthreads();  // scratch may be reused right after
  return v;
}

// An f16 value's bits as a float: the hardware's conversion on the GPU (one
// instruction, exact), half.h's integer steps on the emulated device; the same
// value for every non-NaN half.
__device__ __forceinline__ float half_to_float(uint16_t h) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(h));
#else
  return ::orcd::fp16_to_f32(h);
#endif
}

// Element i of a row of f32 (type 0), f16 (1) or bf16 (30) values.
__device__ __forceinline__ float load_dense(const void* p, int64_t i, uint32_t type) {
  if (type == 1) return half_to_float(static_cast<const uint16_t*>(p)[i]);
  if (type == 30) return ::orcd::bf16_to_f32(static_cast<const uint16_t*>(p)[i]);
  return static_cast<const float*>(p)[i];
}

__device__ __forceinline__ int64_t dense_size(uint32_t type) { return type == 0 ? 4 : 2; }

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_COMMON_CUH_
