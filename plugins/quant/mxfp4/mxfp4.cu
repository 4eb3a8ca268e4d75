// MXFP4 CUDA kernels: the generic get_rows / matvec / matmul over MXFP4's decoder.
#include "mxfp4/mxfp4.h"

#include "common/cuda_kernels.cuh"

namespace orcd::quant {

extern const CudaKernels kCudaKernels_MXFP4 = cuda::make_cuda_kernels<MXFP4>();

}  // namespace orcd::quant
