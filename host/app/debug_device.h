// Test hooks that run orcd-host's CUDA backend without a GPU, so that the
// worker's device paths are exercised end to end as a pool manager sees them
// (the SSE CUDA_ERROR event, /health unhealthy, exit code 3):
//   ORCD_DEBUG_EMULATED_CUDA_MIB=N  device "cuda" runs on the emulated device
//     (host memory, N MiB; the SDK's CUDA emulator runs the kernels: slow);
//   ORCD_DEBUG_DEVICE_FAULT_AFTER_READS=K  with it, after K copies back to
//     the host every copy back and synchronization fails as a sticky CUDA
//     error does (an illegal address poisons the context).
// Both are logged as warnings; neither is ever set in production.
#ifndef ORCD_HOST_APP_DEBUG_DEVICE_H_
#define ORCD_HOST_APP_DEBUG_DEVICE_H_

#include <memory>

#include "host/engine/cuda/device_runtime.h"

namespace orcd {

// The emulated device the variables ask for, or null when they are unset.
std::shared_ptr<engine::cuda::DeviceRuntime> DebugDeviceRuntime();

}  // namespace orcd

#endif  // ORCD_HOST_APP_DEBUG_DEVICE_H_
