// Q4_1 CUDA kernels: the generic get_rows / matvec / matmul over Q4_1's decoder.
#include "q4/q4_1.h"

#include "common/cuda_kernels.cuh"

namespace orcd::quant {

extern const CudaKernels kCudaKernels_Q4_1 = cuda::make_cuda_kernels<Q4_1>();

}  // namespace orcd::quant
