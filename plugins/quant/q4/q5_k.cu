// Q5_K CUDA kernels: the generic get_rows / matvec / matmul over Q5_K's decoder.
#include "q4/q5_k.h"

#include "common/cuda_kernels.cuh"

namespace orcd::quant {

extern const CudaKernels kCudaKernels_Q5_K = cuda::make_cuda_kernels<Q5_K>();

}  // namespace orcd::quant
