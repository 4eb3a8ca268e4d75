// Q4_0 CUDA kernels: the generic get_rows / matvec / matmul over Q4_0's decoder.
#include "q4/q4_0.h"

#include "common/cuda_kernels.cuh"

namespace orcd::quant {

extern const CudaKernels kCudaKernels_Q4_0 = cuda::make_cuda_kernels<Q4_0>();

}  // namespace orcd::quant
