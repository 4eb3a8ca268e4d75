// The emulated device: "device memory" is host memory counted against a fixed
// capacity (so VRAM checks and out-of-memory paths run in CI), copies are
// memcpy, and kernels run synchronously on the SDK's CUDA emulator.
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <vector>

#include "host/common/status.h"
#include "host/engine/cuda/device_runtime.h"
#include "orcd/cpp/emulated_stream.h"
#include "orcd/cpp/half.h"

namespace orcd::engine::cuda {

void DeviceRuntime::Check(int error, const std::string& what) const {
  if (error == 0) return;
  throw Error(ErrorCode::kDevice, what + ": " + kernels().error_name(error));
}

namespace {

class EmulatedRuntime : public DeviceRuntime {
 public:
  explicit EmulatedRuntime(uint64_t capacity) : capacity_(capacity) {}
  ~EmulatedRuntime() override {
    for (const auto& [p, bytes] : blocks_) std::free(p);
  }

  std::string name() const override { return "emulated CUDA device"; }
  bool emulated() const override { return true; }
  void* stream() const override { return &stream_; }
  const OpKernels& kernels() const override { return EmulatedOpKernels(); }

  DeviceMemoryInfo MemoryInfo() override {
    std::lock_guard lock(mu_);
    return {capacity_ - used_, capacity_};
  }
  void* Allocate(size_t bytes) override {
    std::lock_guard lock(mu_);
    if (bytes > capacity_ - used_) {
      throw Error(ErrorCode::kOutOfMemory,
                  "device allocation of " + std::to_string(bytes) + " bytes failed (" +
                      std::to_string(capacity_ - used_) + " free on the emulated device)");
    }
    void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
    if (p == nullptr) throw Error(ErrorCode::kOutOfMemory, "emulated device: host malloc failed");
    blocks_.insert({p, bytes});
    used_ += bytes;
    return p;
  }
  void Free(void* p) override {
    if (p == nullptr) return;
    std::lock_guard lock(mu_);
    for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
      if (it->first == p) {
        used_ -= it->second;
        blocks_.erase(it);
        std::free(p);
        return;
      }
    }
  }
  void* AllocatePinned(size_t bytes) override { return std::malloc(bytes == 0 ? 1 : bytes); }
  void FreePinned(void* p) override { std::free(p); }
  void CopyToDevice(void* dst, const void* src, size_t bytes) override {
    RefuseWhileCapturing("a host-to-device copy");
    std::memcpy(dst, src, bytes);
  }
  void CopyToHost(void* dst, const void* src, size_t bytes) override {
    RefuseWhileCapturing("a device-to-host copy");
    std::memcpy(dst, src, bytes);
  }
  void CopyOnDevice(void* dst, const void* src, size_t bytes) override {
    RefuseWhileCapturing("a device-to-device copy");
    std::memmove(dst, src, bytes);
  }
  void CopyOnDevice2D(void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                      size_t row_bytes, size_t rows) override {
    RefuseWhileCapturing("a device-to-device copy");
    for (size_t r = 0; r < rows; ++r) {
      std::memmove(static_cast<char*>(dst) + r * dst_pitch,
                   static_cast<const char*>(src) + r * src_pitch, row_bytes);
    }
  }
  void Memset(void* dst, int value, size_t bytes) override {
    RefuseWhileCapturing("a memset");
    std::memset(dst, value, bytes);
  }
  void Synchronize() override {}
  void Pace() override {}  // every launch has run when it returns
  void Gemm(bool trans_a, int64_t m, int64_t n, int64_t k, GemmType type, const void* a,
            int64_t lda, const void* b, int64_t ldb, float* c, int64_t ldc) override {
    RefuseWhileCapturing("a GEMM");
    const auto at = [&](const void* p, int64_t i) {
      if (type == GemmType::kF16) return fp16_to_f32(static_cast<const uint16_t*>(p)[i]);
      if (type == GemmType::kBF16) return bf16_to_f32(static_cast<const uint16_t*>(p)[i]);
      return static_cast<const float*>(p)[i];
    };
    for (int64_t col = 0; col < n; ++col) {
      for (int64_t row = 0; row < m; ++row) {
        float acc = 0.0f;
        for (int64_t i = 0; i < k; ++i) {
          const float av = trans_a ? at(a, row * lda + i) : at(a, i * lda + row);
          acc += av * at(b, col * ldb + i);
        }
        c[col * ldc + row] = acc;
      }
    }
  }
  void BeginCapture() override {
    if (stream_.capturing) throw Error(ErrorCode::kDevice, "emulated device: already capturing");
    stream_.captured.clear();
    stream_.capturing = true;
  }
  std::unique_ptr<Graph> EndCapture() override {
    if (!stream_.capturing) throw Error(ErrorCode::kDevice, "emulated device: not capturing");
    stream_.capturing = false;
    return std::make_unique<RecordedGraph>(std::move(stream_.captured));
  }
  void AbortCapture() override {
    stream_.capturing = false;
    stream_.captured.clear();
  }
  bool IsDeviceMemory(const void* p) override {
    std::lock_guard lock(mu_);
    for (const auto& [block, bytes] : blocks_) {
      const auto* b = static_cast<const char*>(block);
      if (p >= b && p < b + bytes) return true;
    }
    return false;
  }

 private:
  // The launches recorded between BeginCapture and EndCapture, run in order.
  class RecordedGraph : public Graph {
   public:
    explicit RecordedGraph(std::vector<std::function<void()>> launches)
        : launches_(std::move(launches)) {}
    void Replay() override {
      for (const auto& launch : launches_) launch();
    }
    size_t kernels() const override { return launches_.size(); }

   private:
    std::vector<std::function<void()>> launches_;
  };

  // As CUDA refuses synchronous work on a capturing stream.
  void RefuseWhileCapturing(const char* what) const {
    if (stream_.capturing) {
      throw Error(ErrorCode::kDevice,
                  std::string("emulated device: ") + what + " while capturing a graph");
    }
  }

  mutable cuda_emulator::EmulatedStream stream_;
  std::mutex mu_;
  uint64_t capacity_;
  uint64_t used_ = 0;
  std::set<std::pair<void*, size_t>> blocks_;
};

}  // namespace

std::shared_ptr<DeviceRuntime> CreateEmulatedRuntime(uint64_t capacity_bytes) {
  return std::make_shared<EmulatedRuntime>(capacity_bytes);
}

#if !ORCD_WITH_CUDA
std::shared_ptr<DeviceRuntime> CreateCudaRuntime(int gpu_index, void* /*stream*/) {
  throw Error(ErrorCode::kDevice, "device 'cuda' (gpu " + std::to_string(gpu_index) +
                                      ") requested but this orcd was built without CUDA");
}
#endif

}  // namespace orcd::engine::cuda
