#include "common/cuda_kernel_set.h"

namespace orcd::quant {

std::vector<const CudaKernels*> all_cuda_kernels() {
  return {
#define ORCD_QUANT_TYPE(plugin, T) &kCudaKernels_##T,
#include "common/type_list.def"
#undef ORCD_QUANT_TYPE
  };
}

const CudaKernels* find_cuda_kernels(orcd_ggml_type type) {
  for (const CudaKernels* k : all_cuda_kernels()) {
    if (k->type == type) return k;
  }
  return nullptr;
}

}  // namespace orcd::quant
