// The OpKernels of the real GPU: the same launchers as the emulated device,
// compiled by nvcc.
#define ORCD_CUDA_VARIANT device
#include "host/engine/cuda/op_launchers.h"

namespace orcd::engine::cuda {

const OpKernels& DeviceOpKernels() {
  static constexpr OpKernels kKernels = device::MakeOpKernels("cuda");
  return kKernels;
}

}  // namespace orcd::engine::cuda
