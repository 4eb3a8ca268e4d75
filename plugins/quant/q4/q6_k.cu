// Q6_K CUDA kernels: the generic get_rows / matvec / matmul over Q6_K's decoder.
#include "q4/q6_k.h"

#include "common/cuda_kernels.cuh"

namespace orcd::quant {

extern const CudaKernels kCudaKernels_Q6_K = cuda::make_cuda_kernels<Q6_K>();

}  // namespace orcd::quant
