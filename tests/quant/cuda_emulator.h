// Runs the CUDA kernels of common/cuda_device_kernels.cuh on the host: one
// std::thread per CUDA thread, a std::barrier per CTA for __syncthreads and
// one per warp for the shuffles, CTAs one after another (so `__shared__` can
// be a function-local static). Slow, but it checks the kernels' indexing,
// tiling and reductions on machines without a GPU. What it cannot check:
// memory-model, coalescing or performance, and anything nvcc compiles
// differently from g++.
#ifndef ORCD_TESTS_QUANT_CUDA_EMULATOR_H_
#define ORCD_TESTS_QUANT_CUDA_EMULATOR_H_

#include <barrier>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

struct EmulatedDim3 {
  unsigned x = 1, y = 1, z = 1;
};
inline thread_local EmulatedDim3 threadIdx, blockIdx, blockDim;

struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) float2 {
  float x, y;
};

namespace orcd::quant::test::emulator {

struct Cta {
  std::unique_ptr<std::barrier<>> all;
  std::vector<std::unique_ptr<std::barrier<>>> warps;
  std::vector<float> lanes;  // one slot per thread for shuffles
};
inline Cta* g_cta = nullptr;

// Runs kernel() as grid.x * grid.y CTAs of block.x threads (block.x a multiple of 32).
template <class Kernel>
void launch(EmulatedDim3 grid, EmulatedDim3 block, Kernel kernel) {
  for (unsigned gy = 0; gy < grid.y; ++gy) {
    for (unsigned gx = 0; gx < grid.x; ++gx) {
      Cta cta;
      cta.all = std::make_unique<std::barrier<>>(block.x);
      for (unsigned w = 0; w < block.x / 32; ++w)
        cta.warps.push_back(std::make_unique<std::barrier<>>(32));
      cta.lanes.resize(block.x);
      g_cta = &cta;
      std::vector<std::thread> threads;
      for (unsigned t = 0; t < block.x; ++t) {
        threads.emplace_back([=] {
          threadIdx = {t, 0, 0};
          blockIdx = {gx, gy, 0};
          blockDim = block;
          kernel();
        });
      }
      for (std::thread& t : threads) t.join();
      g_cta = nullptr;
    }
  }
}

}  // namespace orcd::quant::test::emulator

inline void __syncthreads() { orcd::quant::test::emulator::g_cta->all->arrive_and_wait(); }

inline float __shfl_xor_sync(unsigned /*mask*/, float v, int offset) {
  auto& cta = *orcd::quant::test::emulator::g_cta;
  const unsigned tid = threadIdx.x;
  std::barrier<>& warp = *cta.warps[tid / 32];
  cta.lanes[tid] = v;
  warp.arrive_and_wait();
  const float other = cta.lanes[(tid / 32) * 32 + ((tid % 32) ^ static_cast<unsigned>(offset))];
  warp.arrive_and_wait();
  return other;
}

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

#include "common/cuda_device_kernels.cuh"

#endif  // ORCD_TESTS_QUANT_CUDA_EMULATOR_H_
