// The thin interface through which the CUDA backend reaches a device: memory,
// copies, synchronisation and its kernel table. Two implementations: the real
// CUDA runtime (cuda_device_runtime.cc, built with CUDA) and an emulated
// device (emulated_device_runtime.cc: host memory with a capacity, kernels run
// by the SDK's CUDA emulator) on which CI runs the whole backend.
//
// Copies and kernels are ordered on one stream; only Synchronize and the
// device-to-host copy wait. A sequence of launches can be captured once and
// replayed (graphs). Failures throw orcd::Error: kOutOfMemory for an
// allocation the device cannot satisfy, kDevice for runtime errors.
#ifndef ORCD_HOST_ENGINE_CUDA_DEVICE_RUNTIME_H_
#define ORCD_HOST_ENGINE_CUDA_DEVICE_RUNTIME_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "host/engine/cuda/op_kernels.h"

namespace orcd::engine::cuda {

struct DeviceMemoryInfo {
  uint64_t free_bytes = 0;
  uint64_t total_bytes = 0;
};

// Element type of a GEMM's A and B operands (C is always f32).
enum class GemmType { kF32, kF16, kBF16 };

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  virtual std::string name() const = 0;  // e.g. "NVIDIA H100 80GB HBM3 (sm_90)"
  virtual bool emulated() const = 0;
  virtual void* stream() const = 0;  // what kernels and plugin ops are launched on
  virtual const OpKernels& kernels() const = 0;

  virtual DeviceMemoryInfo MemoryInfo() = 0;
  // Device memory (never managed or host-mapped). Throws kOutOfMemory.
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Free(void* p) = 0;
  // Page-locked host memory for staging copies.
  virtual void* AllocatePinned(size_t bytes) = 0;
  virtual void FreePinned(void* p) = 0;

  virtual void CopyToDevice(void* dst, const void* src, size_t bytes) = 0;  // async
  virtual void CopyToHost(void* dst, const void* src, size_t bytes) = 0;    // waits
  virtual void CopyOnDevice(void* dst, const void* src, size_t bytes) = 0;  // async
  // `rows` runs of `row_bytes`, each at its pitch on both sides (async).
  virtual void CopyOnDevice2D(void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                              size_t row_bytes, size_t rows) = 0;
  virtual void Memset(void* dst, int value, size_t bytes) = 0;  // async
  // Waits for the stream; throws kDevice on an asynchronous failure.
  virtual void Synchronize() = 0;
  // Marks where the stream's queue stands and waits until the device has
  // reached the mark the previous call made (DeviceExecution::PaceRun).
  virtual void Pace() = 0;
  // cuBLAS's GEMM, column-major: C[m x n] = op(A) B with op(A) = A^T when
  // trans_a (A stored k x m, lda >= k) else A (m x k, lda >= m); B k x n
  // (ldb >= k); C f32 (ldc >= m); f32 accumulation. Enqueued on stream().
  // The emulated device computes exactly this in plain loops, so CI checks
  // how callers map their row-major matrices onto it.
  virtual void Gemm(bool trans_a, int64_t m, int64_t n, int64_t k, GemmType type, const void* a,
                    int64_t lda, const void* b, int64_t ldb, float* c, int64_t ldc) = 0;
  // Whether p is device memory of this device (the residency check).
  virtual bool IsDeviceMemory(const void* p) = 0;

  // A recorded sequence of the stream's kernel launches, replayed as one
  // launch (a CUDA graph): the decode step without per-kernel launch costs.
  class Graph {
   public:
    virtual ~Graph() = default;
    virtual void Replay() = 0;           // enqueued on stream()
    virtual size_t kernels() const = 0;  // launches recorded
  };
  // Between BeginCapture and EndCapture, kernels launched on stream() are
  // recorded, not run; copies, memsets and GEMMs there are refused (kDevice).
  // EndCapture returns the graph (nothing has run yet); AbortCapture drops
  // what was recorded (after a failure mid-capture).
  virtual void BeginCapture() = 0;
  virtual std::unique_ptr<Graph> EndCapture() = 0;
  virtual void AbortCapture() = 0;
  // Turns a kernel launch result of kernels() into an exception naming `what`.
  void Check(int error, const std::string& what) const;
};

// An emulated device with `capacity_bytes` of memory.
std::shared_ptr<DeviceRuntime> CreateEmulatedRuntime(uint64_t capacity_bytes);

// The GPU `gpu_index`, launching on `stream` (a cudaStream_t; null: the runtime
// creates its own). Throws kDevice when this build has no CUDA or the GPU is
// unusable.
std::shared_ptr<DeviceRuntime> CreateCudaRuntime(int gpu_index, void* stream);

}  // namespace orcd::engine::cuda

#endif  // ORCD_HOST_ENGINE_CUDA_DEVICE_RUNTIME_H_
