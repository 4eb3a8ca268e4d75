// A DeviceRuntime that forwards every call to another: the base of wrappers
// that change one behaviour of a device (a fault injected, residency lost)
// for tests and orcd-host's debug hooks, without repeating the interface.
#ifndef ORCD_HOST_ENGINE_CUDA_DELEGATING_RUNTIME_H_
#define ORCD_HOST_ENGINE_CUDA_DELEGATING_RUNTIME_H_

#include <memory>
#include <string>
#include <utility>

#include "host/engine/cuda/device_runtime.h"

namespace orcd::engine::cuda {

class DelegatingRuntime : public DeviceRuntime {
 public:
  explicit DelegatingRuntime(std::shared_ptr<DeviceRuntime> inner) : inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }
  bool emulated() const override { return inner_->emulated(); }
  void* stream() const override { return inner_->stream(); }
  const OpKernels& kernels() const override { return inner_->kernels(); }
  DeviceMemoryInfo MemoryInfo() override { return inner_->MemoryInfo(); }
  void* Allocate(size_t bytes) override { return inner_->Allocate(bytes); }
  void Free(void* p) override { inner_->Free(p); }
  void* AllocatePinned(size_t bytes) override { return inner_->AllocatePinned(bytes); }
  void FreePinned(void* p) override { inner_->FreePinned(p); }
  void CopyToDevice(void* dst, const void* src, size_t n) override {
    inner_->CopyToDevice(dst, src, n);
  }
  void CopyToHost(void* dst, const void* src, size_t n) override {
    inner_->CopyToHost(dst, src, n);
  }
  void CopyOnDevice(void* dst, const void* src, size_t n) override {
    inner_->CopyOnDevice(dst, src, n);
  }
  void CopyOnDevice2D(void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                      size_t row_bytes, size_t rows) override {
    inner_->CopyOnDevice2D(dst, dst_pitch, src, src_pitch, row_bytes, rows);
  }
  void Memset(void* dst, int value, size_t n) override { inner_->Memset(dst, value, n); }
  void Synchronize() override { inner_->Synchronize(); }
  void Pace() override { inner_->Pace(); }
  void Gemm(bool trans_a, int64_t m, int64_t n, int64_t k, GemmType type, const void* a,
            int64_t lda, const void* b, int64_t ldb, float* c, int64_t ldc) override {
    inner_->Gemm(trans_a, m, n, k, type, a, lda, b, ldb, c, ldc);
  }
  bool IsDeviceMemory(const void* p) override { return inner_->IsDeviceMemory(p); }
  void BeginCapture() override { inner_->BeginCapture(); }
  std::unique_ptr<Graph> EndCapture() override { return inner_->EndCapture(); }
  void AbortCapture() override { inner_->AbortCapture(); }

 private:
  std::shared_ptr<DeviceRuntime> inner_;
};

}  // namespace orcd::engine::cuda

#endif  // ORCD_HOST_ENGINE_CUDA_DELEGATING_RUNTIME_H_
