// Q4_K CUDA kernels: the generic get_rows / matvec / matmul over Q4_K's decoder.
#include "q4/q4_k.h"

#include "common/cuda_kernels.cuh"

namespace orcd::quant {

extern const CudaKernels kCudaKernels_Q4_K = cuda::make_cuda_kernels<Q4_K>();

}  // namespace orcd::quant
