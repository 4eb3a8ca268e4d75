#include "host/app/debug_device.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/engine/cuda/delegating_runtime.h"

namespace orcd {
namespace {

using engine::cuda::DelegatingRuntime;
using engine::cuda::DeviceRuntime;

long PositiveEnv(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return 0;
  const long n = std::strtol(v, nullptr, 10);
  return n > 0 ? n : 0;
}

// Fails every copy back and synchronization after `reads` copies back.
class FaultAfterReads final : public DelegatingRuntime {
 public:
  FaultAfterReads(std::shared_ptr<DeviceRuntime> inner, long reads)
      : DelegatingRuntime(std::move(inner)), left_(reads) {}

  void CopyToHost(void* dst, const void* src, size_t n) override {
    if (left_.fetch_sub(1) <= 0) Fault();
    DelegatingRuntime::CopyToHost(dst, src, n);
  }
  void Synchronize() override {
    if (left_.load() <= 0) Fault();
    DelegatingRuntime::Synchronize();
  }

 private:
  [[noreturn]] static void Fault() {
    throw Error(ErrorCode::kDevice,
                "an illegal memory access was encountered (ORCD_DEBUG_DEVICE_FAULT_AFTER_READS)");
  }
  std::atomic<long> left_;
};

}  // namespace

std::shared_ptr<DeviceRuntime> DebugDeviceRuntime() {
  const long mib = PositiveEnv("ORCD_DEBUG_EMULATED_CUDA_MIB");
  if (mib == 0) return nullptr;
  LogWarn("startup",
          "ORCD_DEBUG_EMULATED_CUDA_MIB is set: the CUDA backend runs on the "
          "emulated device, no GPU (testing only)",
          {{"mib", std::to_string(mib)}});
  std::shared_ptr<DeviceRuntime> device =
      engine::cuda::CreateEmulatedRuntime(static_cast<uint64_t>(mib) << 20);
  if (const long reads = PositiveEnv("ORCD_DEBUG_DEVICE_FAULT_AFTER_READS"); reads > 0) {
    LogWarn("startup",
            "ORCD_DEBUG_DEVICE_FAULT_AFTER_READS is set: the device fails on purpose "
            "(testing only)",
            {{"reads", std::to_string(reads)}});
    device = std::make_shared<FaultAfterReads>(std::move(device), reads);
  }
  return device;
}

}  // namespace orcd
