// Kernel launches written once for two builds: nvcc (a real launch on a
// stream) and an emulated build (ORCD_CUDA_EMULATED defined: the SDK's CUDA
// emulator runs the kernel on the host, synchronously). Launcher code says
//
//   ORCD_KERNEL(grid, block, stream, my_kernel<T, 4>)(arg0, arg1);
//   return ORCD_LAUNCH_RESULT();
//
// and uses cudaError_t / cudaStream_t as usual; the emulated build defines
// the few runtime names it needs.
#ifndef ORCD_CPP_CUDA_LAUNCH_H_
#define ORCD_CPP_CUDA_LAUNCH_H_

#if defined(ORCD_CUDA_EMULATED)

#include "orcd/cpp/cuda_emulator.h"
#include "orcd/cpp/emulated_stream.h"

using cudaStream_t = void*;
enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
inline const char* cudaGetErrorName(cudaError_t e) {
  return e == cudaSuccess ? "cudaSuccess" : "cudaErrorInvalidValue";
}
inline const char* cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "invalid argument";
}

namespace orcd::cuda_emulator {

// A launch on an EmulatedStream that is capturing is recorded, not run.
template <class Fn>
struct KernelLaunch {
  dim3 grid, block;
  Fn* kernel;
  void* stream;
  template <class... Args>
  void operator()(Args... args) const {
    auto* s = static_cast<EmulatedStream*>(stream);
    if (s != nullptr && s->capturing) {
      const dim3 g = grid, b = block;
      Fn* k = kernel;
      s->captured.push_back([=] { launch(g, b, [&] { k(args...); }); });
      return;
    }
    launch(grid, block, [&] { kernel(args...); });
  }
};
}  // namespace orcd::cuda_emulator

#define ORCD_KERNEL(grid, block, stream, ...)                         \
  ::orcd::cuda_emulator::KernelLaunch<decltype(__VA_ARGS__)> {        \
    dim3(grid), dim3(block), &__VA_ARGS__, static_cast<void*>(stream) \
  }
#define ORCD_LAUNCH_RESULT() cudaSuccess

#else

#include <cuda_runtime.h>

#define ORCD_KERNEL(grid, block, stream, ...) __VA_ARGS__<<<grid, block, 0, stream>>>
#define ORCD_LAUNCH_RESULT() cudaGetLastError()

#endif

#endif  // ORCD_CPP_CUDA_LAUNCH_H_
