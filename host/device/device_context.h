// The device the worker runs on. The host owns it: plugins only ever see the
// stream and memory the host hands them. CPU is explicit (device: cpu); a
// CUDA request that cannot be met fails: never a silent fallback.
#ifndef ORCD_HOST_DEVICE_DEVICE_CONTEXT_H_
#define ORCD_HOST_DEVICE_DEVICE_CONTEXT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "orcd/plugin.h"

namespace orcd {

struct DeviceInfo {
  orcd_backend backend = ORCD_BACKEND_CPU;
  std::string name;  // "cpu (N threads)" or the GPU's name
  int index = 0;
  int sm = 0;                   // compute capability major*10+minor (CUDA)
  uint64_t total_memory = 0;    // bytes (CUDA)
  uint64_t free_memory = 0;     // bytes at start-up (CUDA)
  std::string runtime_version;  // CUDA runtime, e.g. "13.0"
};

class DeviceContext {
 public:
  virtual ~DeviceContext() = default;
  virtual const DeviceInfo& info() const = 0;
  virtual void* stream() const = 0;  // cudaStream_t, or nullptr on CPU
};

// "cpu" or "cuda". Throws orcd::Error(kDevice) naming the device and why
// (no CUDA in this build, no such GPU, driver error).
std::unique_ptr<DeviceContext> CreateDeviceContext(const std::string& kind, int gpu_index,
                                                   int cpu_threads);

bool CudaBackendBuilt();

}  // namespace orcd

#endif  // ORCD_HOST_DEVICE_DEVICE_CONTEXT_H_
