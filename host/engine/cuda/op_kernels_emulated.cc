// The OpKernels of the emulated device: the backend's kernels compiled for
// the host and run by the SDK's CUDA emulator (a fiber per CUDA thread).
#define ORCD_CUDA_EMULATED 1
#define ORCD_CUDA_VARIANT emulated
#include "host/engine/cuda/op_launchers.h"

namespace orcd::engine::cuda {

const OpKernels& EmulatedOpKernels() {
  static constexpr OpKernels kKernels = emulated::MakeOpKernels("emulated");
  return kKernels;
}

bool DenseTypeSupported(uint32_t type) { return type == 0 || type == 1 || type == 30; }

}  // namespace orcd::engine::cuda
