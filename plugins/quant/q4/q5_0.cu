// Q5_0 CUDA kernels: the generic get_rows / matvec / matmul over Q5_0's decoder.
#include "q4/q5_0.h"

#include "common/cuda_kernels.cuh"

namespace orcd::quant {

extern const CudaKernels kCudaKernels_Q5_0 = cuda::make_cuda_kernels<Q5_0>();

}  // namespace orcd::quant
