#include "host/device/device_context.h"

#include <thread>

#include "host/common/status.h"
#include "host/plugins/host_services.h"

namespace orcd {

#if ORCD_WITH_CUDA
std::unique_ptr<DeviceContext> CreateCudaContext(int gpu_index);  // cuda_context.cc
bool CudaBackendBuilt() { return true; }
#else
bool CudaBackendBuilt() { return false; }
#endif

namespace {

class CpuContext : public DeviceContext {
 public:
  explicit CpuContext(int threads) {
    info_.backend = ORCD_BACKEND_CPU;
    const unsigned n =
        threads > 0 ? static_cast<unsigned>(threads) : std::thread::hardware_concurrency();
    info_.name = "cpu (" + std::to_string(n) + " threads)";
    SetHostBackend(ORCD_BACKEND_CPU, nullptr);
  }
  const DeviceInfo& info() const override { return info_; }
  void* stream() const override { return nullptr; }

 private:
  DeviceInfo info_;
};

}  // namespace

std::unique_ptr<DeviceContext> CreateDeviceContext(const std::string& kind, int gpu_index,
                                                   int cpu_threads) {
  if (kind == "cpu") return std::make_unique<CpuContext>(cpu_threads);
  if (kind != "cuda")
    throw Error(ErrorCode::kInvalidArgument, "unknown device kind '" + kind + "'");
#if ORCD_WITH_CUDA
  return CreateCudaContext(gpu_index);
#else
  throw Error(ErrorCode::kDevice,
              "device 'cuda' (gpu " + std::to_string(gpu_index) +
                  ") requested but this orcd was built without the CUDA backend; "
                  "rebuild with CUDA or set device.kind: cpu");
#endif
}

}  // namespace orcd
