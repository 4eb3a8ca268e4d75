// One device allocation, owned (RAII): freed through its runtime when the
// buffer goes, and counted in the owner's VRAM accounting meanwhile.
#ifndef ORCD_HOST_ENGINE_CUDA_DEVICE_BUFFER_H_
#define ORCD_HOST_ENGINE_CUDA_DEVICE_BUFFER_H_

#include <cstdint>
#include <utility>

#include "host/engine/cuda/device_runtime.h"

namespace orcd::engine::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceRuntime& runtime, uint64_t bytes)
      : runtime_(&runtime), data_(runtime.Allocate(bytes)), bytes_(bytes) {}
  ~DeviceBuffer() { Reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : runtime_(o.runtime_), data_(std::exchange(o.data_, nullptr)), bytes_(o.bytes_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      Reset();
      runtime_ = o.runtime_;
      data_ = std::exchange(o.data_, nullptr);
      bytes_ = o.bytes_;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void Reset() {
    if (data_) runtime_->Free(data_);
    data_ = nullptr;
    bytes_ = 0;
  }
  template <class T = void>
  T* get() const {
    return static_cast<T*>(data_);
  }
  uint64_t bytes() const { return data_ ? bytes_ : 0; }

 private:
  DeviceRuntime* runtime_ = nullptr;
  void* data_ = nullptr;
  uint64_t bytes_ = 0;
};

// Page-locked host memory, owned (RAII): the staging of per-step values, so
// that their copies are true asynchronous DMA, not a driver-side bounce
// through a pageable buffer.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(DeviceRuntime& runtime, uint64_t bytes)
      : runtime_(&runtime), data_(runtime.AllocatePinned(bytes)) {}
  ~PinnedBuffer() { Reset(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : runtime_(o.runtime_), data_(std::exchange(o.data_, nullptr)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      Reset();
      runtime_ = o.runtime_;
      data_ = std::exchange(o.data_, nullptr);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void Reset() {
    if (data_) runtime_->FreePinned(data_);
    data_ = nullptr;
  }
  template <class T = void>
  T* get() const {
    return static_cast<T*>(data_);
  }

 private:
  DeviceRuntime* runtime_ = nullptr;
  void* data_ = nullptr;
};

}  // namespace orcd::engine::cuda

#endif  // ORCD_HOST_ENGINE_CUDA_DEVICE_BUFFER_H_
