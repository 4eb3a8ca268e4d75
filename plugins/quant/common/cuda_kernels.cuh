// Launchers of the CUDA kernels (cuda_device_kernels.cuh) and the kernel set a
// per-type .cu instantiates:
//   extern const CudaKernels kCudaKernels_<T> = cuda::make_cuda_kernels<T>();
#ifndef ORCD_QUANT_COMMON_CUDA_KERNELS_CUH_
#define ORCD_QUANT_COMMON_CUDA_KERNELS_CUH_

#include <stdint.h>

#include "common/cuda_device_kernels.cuh"
#include "common/cuda_kernel_set.h"

namespace orcd::quant::cuda {

// get_rows into floats (Out = float) or f16 bits (Out = uint16_t).
template <class T, class Out>
cudaError_t launch_get_rows(const void* w, int64_t cols, const int32_t* ids, int64_t n_ids,
                            Out* out, cudaStream_t stream) {
  if (n_ids <= 0) return cudaSuccess;
  if (n_ids > INT32_MAX) return cudaErrorInvalidValue;
  ORCD_KERNEL(static_cast<unsigned>(n_ids), kGetRowsThreads, stream, get_rows_kernel<T, Out>)
  (static_cast<const typename T::Block*>(w), cols / T::kElems, ids, out, cols);
  return ORCD_LAUNCH_RESULT();
}

template <class T>
cudaError_t launch_matvec(const void* w, int64_t rows, int64_t cols, const float* x, float* y,
                          cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  const int64_t ctas = (rows + kMatvecRowsPerCta - 1) / kMatvecRowsPerCta;
  if (ctas > INT32_MAX) return cudaErrorInvalidValue;
  const auto* blocks = static_cast<const typename T::Block*>(w);
  const bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0;
  if (aligned) {
    ORCD_KERNEL(static_cast<unsigned>(ctas), kMatvecThreads, stream, matvec_kernel<T, true>)
    (blocks, rows, cols / T::kElems, x, y);
  } else {
    ORCD_KERNEL(static_cast<unsigned>(ctas), kMatvecThreads, stream, matvec_kernel<T, false>)
    (blocks, rows, cols / T::kElems, x, y);
  }
  return ORCD_LAUNCH_RESULT();
}

template <class T>
cudaError_t launch_matvec_ids(const void* w, int64_t rows, int64_t cols, int64_t expert_stride,
                              const int32_t* ids, int64_t n_ids, int64_t ids_per_x, const float* x,
                              int64_t x_stride, float* y, int64_t y_stride, cudaStream_t stream) {
  if (rows <= 0 || n_ids <= 0) return cudaSuccess;
  const int64_t ctas = (rows + kMatvecRowsPerCta - 1) / kMatvecRowsPerCta;
  if (ctas > INT32_MAX || n_ids > 65535) return cudaErrorInvalidValue;
  const auto* blocks = static_cast<const typename T::Block*>(w);
  const int64_t expert_blocks = expert_stride / static_cast<int64_t>(sizeof(typename T::Block));
  const dim3 grid(static_cast<unsigned>(ctas), static_cast<unsigned>(n_ids));
  const bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0 && x_stride % 4 == 0;
  if (aligned) {
    ORCD_KERNEL(grid, kMatvecThreads, stream, matvec_ids_kernel<T, true>)
    (blocks, rows, cols / T::kElems, expert_blocks, ids, ids_per_x, x, x_stride, y, y_stride);
  } else {
    ORCD_KERNEL(grid, kMatvecThreads, stream, matvec_ids_kernel<T, false>)
    (blocks, rows, cols / T::kElems, expert_blocks, ids, ids_per_x, x, x_stride, y, y_stride);
  }
  return ORCD_LAUNCH_RESULT();
}

template <class T>
cudaError_t launch_matvec_q8(const void* w, int64_t rows, int64_t cols, const Q8x32* xq, float* y,
                             cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  const int64_t row_blocks = cols / T::kElems;
  const int split = q8_split<T>(rows, row_blocks);
  const int64_t ctas = q8_ctas(rows, split);
  if (ctas > INT32_MAX) return cudaErrorInvalidValue;
  ORCD_KERNEL(static_cast<unsigned>(ctas), kQ8Threads, stream, matvec_q8_kernel<T>)
  (static_cast<const typename T::Block*>(w), rows, row_blocks, xq, y, split);
  return ORCD_LAUNCH_RESULT();
}

template <class T>
cudaError_t launch_matvec_ids_q8(const void* w, int64_t rows, int64_t cols, int64_t expert_stride,
                                 const int32_t* ids, int64_t n_ids, int64_t ids_per_x,
                                 const Q8x32* xq, int64_t xq_stride, float* y, int64_t y_stride,
                                 cudaStream_t stream) {
  if (rows <= 0 || n_ids <= 0) return cudaSuccess;
  const int64_t row_blocks = cols / T::kElems;
  const int split = q8_split<T>(rows, row_blocks);  // per expert: matvec_q8's for the expert
  const int64_t ctas = q8_ctas(rows, split);
  if (ctas > INT32_MAX || n_ids > 65535) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(ctas), static_cast<unsigned>(n_ids));
  ORCD_KERNEL(grid, kQ8Threads, stream, matvec_ids_q8_kernel<T>)
  (static_cast<const typename T::Block*>(w), rows, row_blocks,
   expert_stride / static_cast<int64_t>(sizeof(typename T::Block)), ids, ids_per_x, xq, xq_stride,
   y, y_stride, split);
  return ORCD_LAUNCH_RESULT();
}

template <class T>
cudaError_t launch_matvec_glu_q8(const void* gate, const void* up, int64_t rows, int64_t cols,
                                 int64_t expert_stride, const int32_t* ids, int64_t n_ids,
                                 int64_t ids_per_x, const Q8x32* xq, int64_t xq_stride,
                                 const orcd_glu_params* glu, float* y, int64_t y_stride,
                                 cudaStream_t stream) {
  if (rows <= 0 || n_ids <= 0) return cudaSuccess;
  const int64_t row_blocks = cols / T::kElems;
  const int split = q8_split<T>(rows, row_blocks);
  const int64_t ctas = q8_ctas(rows, split);
  if (ctas > INT32_MAX || n_ids > 65535) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(ctas), static_cast<unsigned>(n_ids));
  const GluArgs args{glu->activation, glu->alpha, glu->limit, glu->d_gate_bias, glu->d_up_bias};
  ORCD_KERNEL(grid, kQ8Threads, stream, matvec_glu_q8_kernel<T>)
  (static_cast<const typename T::Block*>(gate), static_cast<const typename T::Block*>(up), rows,
   row_blocks, expert_stride / static_cast<int64_t>(sizeof(typename T::Block)), ids, ids_per_x, xq,
   xq_stride, args, y, y_stride, split);
  return ORCD_LAUNCH_RESULT();
}

template <class T>
cudaError_t launch_matvec_multi_q8(const orcd_matvec_part* parts, int32_t n_parts, int64_t cols,
                                   const Q8x32* xq, cudaStream_t stream) {
  if (n_parts <= 0 || n_parts > kMaxMatvecParts) return cudaErrorInvalidValue;
  const int64_t row_blocks = cols / T::kElems;
  MultiArgs<T> a{};
  a.n_parts = n_parts;
  for (int j = 0; j < n_parts; ++j) {
    a.w[j] = static_cast<const typename T::Block*>(parts[j].d_w);
    a.rows[j] = parts[j].rows;
    a.y[j] = parts[j].d_y;
    a.split[j] = q8_split<T>(parts[j].rows, row_blocks);  // each part as its own matvec_q8
    a.first_cta[j + 1] = a.first_cta[j] + q8_ctas(parts[j].rows, a.split[j]);
  }
  const int64_t ctas = a.first_cta[n_parts];
  if (ctas == 0) return cudaSuccess;
  if (ctas > INT32_MAX) return cudaErrorInvalidValue;
  ORCD_KERNEL(static_cast<unsigned>(ctas), kQ8Threads, stream, matvec_multi_q8_kernel<T>)
  (a, row_blocks, xq);
  return ORCD_LAUNCH_RESULT();
}

template <class T>
cudaError_t launch_matvec_xs_q8(const void* w, int64_t rows, int64_t cols, const Q8x32* xq,
                                int64_t xq_stride, int64_t n_x, float* y, int64_t y_stride,
                                cudaStream_t stream) {
  if (rows <= 0 || n_x <= 0) return cudaSuccess;
  const int64_t row_blocks = cols / T::kElems;
  const int split = q8_split<T>(rows, row_blocks);  // not of n_x: each x keeps matvec_q8's bits
  const int64_t ctas = q8_ctas(rows, split);
  const int64_t passes = (n_x + kXsPerPass - 1) / kXsPerPass;
  if (ctas > INT32_MAX || passes > 65535) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(ctas), static_cast<unsigned>(passes));
  ORCD_KERNEL(grid, kQ8Threads, stream, matvec_xs_q8_kernel<T>)
  (static_cast<const typename T::Block*>(w), rows, row_blocks, xq, xq_stride, n_x, y, y_stride,
   split);
  return ORCD_LAUNCH_RESULT();
}

template <class T>
cudaError_t launch_matmul(const void* w, int64_t rows, int64_t cols, const float* x,
                          int64_t n_tokens, float* y, int64_t y_stride, cudaStream_t stream) {
  if (rows <= 0 || n_tokens <= 0) return cudaSuccess;
  if (n_tokens == 1) return launch_matvec<T>(w, rows, cols, x, y, stream);
  const int64_t row_tiles = (rows + kTileRows - 1) / kTileRows;
  const int64_t token_tiles = (n_tokens + kTileTokens - 1) / kTileTokens;
  if (row_tiles > INT32_MAX || token_tiles > 65535) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(row_tiles), static_cast<unsigned>(token_tiles));
  ORCD_KERNEL(grid, kMatmulThreads, stream, matmul_kernel<T>)
  (static_cast<const typename T::Block*>(w), rows, cols, x, n_tokens, y, y_stride);
  return ORCD_LAUNCH_RESULT();
}

template <class T>
constexpr CudaKernels make_cuda_kernels() {
  static_assert(covers_tiles_of_128<T>(), "chunk numbering breaks the 128-element tile rule");
  return CudaKernels{T::kType,
                     T::kName,
                     static_cast<uint32_t>(T::kElems),
                     static_cast<uint32_t>(sizeof(typename T::Block)),
                     &launch_get_rows<T, float>,
                     &launch_matvec<T>,
                     &launch_matmul<T>,
                     &launch_matvec_ids<T>,
                     has_q8_dot<T>::value ? &launch_matvec_q8<T> : nullptr,
                     has_q8_dot<T>::value ? &launch_matvec_ids_q8<T> : nullptr,
                     has_q8_dot<T>::value ? &launch_matvec_glu_q8<T> : nullptr,
                     has_q8_dot<T>::value ? &launch_matvec_multi_q8<T> : nullptr,
                     has_q8_dot<T>::value ? &launch_matvec_xs_q8<T> : nullptr,
                     &launch_get_rows<T, uint16_t>};
}

}  // namespace orcd::quant::cuda

#endif  // ORCD_QUANT_COMMON_CUDA_KERNELS_CUH_
