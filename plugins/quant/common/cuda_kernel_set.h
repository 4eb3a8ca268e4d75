// The CUDA kernels of one quant type (launchers on a given stream), as the
// plugins, the GPU tests and orcd-bench see them. Built only with CUDA; C++17
// (the project compiles CUDA sources as C++17).
#ifndef ORCD_QUANT_COMMON_CUDA_KERNEL_SET_H_
#define ORCD_QUANT_COMMON_CUDA_KERNEL_SET_H_

#include <stdint.h>
#include "orcd/cpp/cuda_launch.h"  // the CUDA runtime, or the emulator

#include <vector>

#include "orcd/plugin.h"

namespace orcd::quant {

// Device pointers throughout; same layouts as orcd_quant_cuda_ops. Each
// launcher enqueues on `stream` and returns cudaGetLastError() (so launch
// failures, not kernel faults, which surface at the next synchronisation).
// The weight pointer must be aligned like its blocks (2 bytes; 1 for MXFP4);
// x may have any 4-byte alignment (16-byte aligned x takes vector loads).
struct CudaKernels {
  orcd_ggml_type type;
  const char* name;
  uint32_t block_elems;
  uint32_t block_bytes;
  cudaError_t (*get_rows)(const void* w, int64_t cols, const int32_t* ids, int64_t n_ids,
                          float* out, cudaStream_t stream);
  // Decode: y[r] = W[r] . x, one warp per two rows.
  cudaError_t (*matvec)(const void* w, int64_t rows, int64_t cols, const float* x, float* y,
                        cudaStream_t stream);
  // Prefill: y[t * y_stride + r] = W[r] . x[t]; tiled, 1 token goes to matvec.
  cudaError_t (*matmul)(const void* w, int64_t rows, int64_t cols, const float* x, int64_t n_tokens,
                        float* y, int64_t y_stride, cudaStream_t stream);
  // MoE: y[i * y_stride + r] = W_{ids[i]}[r] . x[(i / ids_per_x) * x_stride + :];
  // experts expert_stride bytes apart; ids in device memory.
  cudaError_t (*matvec_ids)(const void* w, int64_t rows, int64_t cols, int64_t expert_stride,
                            const int32_t* ids, int64_t n_ids, int64_t ids_per_x, const float* x,
                            int64_t x_stride, float* y, int64_t y_stride, cudaStream_t stream);
  // The same two with 8-bit activations (orcd_q8_x32 runs, q8_dot.h); null
  // for a type without dot_q8. xq_stride counts runs.
  cudaError_t (*matvec_q8)(const void* w, int64_t rows, int64_t cols, const orcd_q8_x32* xq,
                           float* y, cudaStream_t stream);
  cudaError_t (*matvec_ids_q8)(const void* w, int64_t rows, int64_t cols, int64_t expert_stride,
                               const int32_t* ids, int64_t n_ids, int64_t ids_per_x,
                               const orcd_q8_x32* xq, int64_t xq_stride, float* y, int64_t y_stride,
                               cudaStream_t stream);
  // Gate and up rows in one warp, then the gated activation (ABI 1.5
  // matvec_glu_q8); null where matvec_q8 is.
  cudaError_t (*matvec_glu_q8)(const void* gate, const void* up, int64_t rows, int64_t cols,
                               int64_t expert_stride, const int32_t* ids, int64_t n_ids,
                               int64_t ids_per_x, const orcd_q8_x32* xq, int64_t xq_stride,
                               const orcd_glu_params* glu, float* y, int64_t y_stride,
                               cudaStream_t stream);
  // Up to 4 matvec_q8 with one x in one launch (ABI 1.5 matvec_multi_q8).
  cudaError_t (*matvec_multi_q8)(const orcd_matvec_part* parts, int32_t n_parts, int64_t cols,
                                 const orcd_q8_x32* xq, cudaStream_t stream);
  // One weight times n_x rows of x, each weight block read once for up to
  // kXsPerPass of them (ABI 1.7 matvec_xs_q8); null where matvec_q8 is.
  cudaError_t (*matvec_xs_q8)(const void* w, int64_t rows, int64_t cols, const orcd_q8_x32* xq,
                              int64_t xq_stride, int64_t n_x, float* y, int64_t y_stride,
                              cudaStream_t stream);
  // get_rows rounded to f16 as it is written (ABI 1.8 get_rows_f16): the
  // tensor-core prefill's weight operand in one pass.
  cudaError_t (*get_rows_f16)(const void* w, int64_t cols, const int32_t* ids, int64_t n_ids,
                              uint16_t* out, cudaStream_t stream);
};

std::vector<const CudaKernels*> all_cuda_kernels();         // type_list.def order
const CudaKernels* find_cuda_kernels(orcd_ggml_type type);  // nullptr if not served

#define ORCD_QUANT_TYPE(plugin, T) extern const CudaKernels kCudaKernels_##T;
#include "common/type_list.def"
#undef ORCD_QUANT_TYPE

}  // namespace orcd::quant

#endif  // ORCD_QUANT_COMMON_CUDA_KERNEL_SET_H_
