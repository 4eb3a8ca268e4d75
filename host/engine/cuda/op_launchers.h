// The launch functions behind OpKernels (op_kernels.h), written once for both
// builds: included by op_kernels_device.cu (nvcc, real launches) and by
// op_kernels_emulated.cc (the SDK's CUDA emulator), each with its own
// ORCD_CUDA_VARIANT namespace. Launch shapes are fixed here.
#ifndef ORCD_HOST_ENGINE_CUDA_OP_LAUNCHERS_H_
#define ORCD_HOST_ENGINE_CUDA_OP_LAUNCHERS_H_

#include "host/engine/cuda/kernels/argmax.cuh"
#include "host/engine/cuda/kernels/attention.cuh"
#include "host/engine/cuda/kernels/attention_tiles.cuh"
#include "host/engine/cuda/kernels/dense.cuh"
#include "host/engine/cuda/kernels/elementwise.cuh"
#include "host/engine/cuda/kernels/moe.cuh"
#include "host/engine/cuda/kernels/norm.cuh"
#include "host/engine/cuda/kernels/quantize.cuh"
#include "host/engine/cuda/kernels/rope.cuh"
#include "host/engine/cuda/kernels/sampler.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

inline cudaStream_t Stream(void* s) { return static_cast<cudaStream_t>(s); }

// Grid-stride kernels: enough CTAs to cover n, capped (they loop beyond).
inline unsigned GridFor(int64_t n) {
  const int64_t ctas = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(ctas < 1 ? 1 : ctas > 65535 ? 65535 : ctas);
}
inline unsigned RowGrid(int64_t rows) {
  return static_cast<unsigned>(rows < 1 ? 1 : rows > 65535 ? 65535 : rows);
}

#define ORCD_ELEMENTWISE(n, kernel, ...)                                    \
  do {                                                                      \
    if ((n) <= 0) return 0;                                                 \
    ORCD_KERNEL(GridFor(n), kThreads, Stream(stream), kernel)(__VA_ARGS__); \
    return static_cast<int>(ORCD_LAUNCH_RESULT());                          \
  } while (0)

inline int Add(const float* a, const float* b, float* y, int64_t n, void* stream) {
  ORCD_ELEMENTWISE(n, add_kernel, a, b, y, n);
}
inline int Mul(const float* a, const float* b, float* y, int64_t n, void* stream) {
  ORCD_ELEMENTWISE(n, mul_kernel, a, b, y, n);
}
inline int Glu(const float* gate, const float* up, int64_t in_stride, float* y, int64_t f,
               int64_t n_tokens, uint32_t activation, void* stream) {
  ORCD_ELEMENTWISE(f * n_tokens, glu_kernel, gate, up, in_stride, y, f, f * n_tokens, activation);
}
inline int SwigluQ8(const float* gate, const float* up, float* y, orcd_q8_x32* q8, int64_t f,
                    void* stream) {
  const int64_t runs = f / 32;
  if (runs <= 0) return 0;
  if (f % 32 != 0) return static_cast<int>(cudaErrorInvalidValue);
  const int64_t ctas = (runs + kQuantizeWarps - 1) / kQuantizeWarps;
  ORCD_KERNEL(static_cast<unsigned>(ctas > 65535 ? 65535 : ctas), kQuantizeWarps * kWarp,
              Stream(stream), swiglu_q8_kernel)
  (gate, up, y, q8, runs);
  return static_cast<int>(ORCD_LAUNCH_RESULT());
}
inline int Gelu(const float* x, float* y, int64_t n, void* stream) {
  ORCD_ELEMENTWISE(n, gelu_kernel, x, y, n);
}
inline int AddBias(float* y, const float* bias, int64_t width, int64_t y_stride, int64_t n_tokens,
                   void* stream) {
  ORCD_ELEMENTWISE(width * n_tokens, add_bias_kernel, y, bias, width, y_stride, width * n_tokens);
}
inline int Softcap(float* y, float cap, int64_t n, void* stream) {
  ORCD_ELEMENTWISE(n, softcap_kernel, y, cap, n);
}
inline int Scale(float* y, float s, int64_t n, void* stream) {
  ORCD_ELEMENTWISE(n, scale_kernel, y, s, n);
}
inline int ToHalf(const float* x, uint16_t* out, int64_t n, uint32_t type, void* stream) {
  ORCD_ELEMENTWISE(n, to_half_kernel, x, out, n, type);
}
inline int Positions(int32_t* ids, const StepValues* step, int64_t n, void* stream) {
  ORCD_ELEMENTWISE(n, positions_kernel, ids, step, n);
}
inline int MoeActivate(float* g, const float* u, const float* g_bias, const float* u_bias,
                       const int32_t* ids, int64_t pairs, int64_t f, int activation, float alpha,
                       float limit, void* stream) {
  ORCD_ELEMENTWISE(pairs * f, moe_activate_kernel, g, u, g_bias, u_bias, ids, f, pairs * f,
                   activation, alpha, limit);
}
inline int MoeCombine(const float* down, const float* bias, const int32_t* ids,
                      const float* weights, float* y, int64_t n_tokens, int64_t k, int64_t d,
                      void* stream) {
  ORCD_ELEMENTWISE(n_tokens * d, moe_combine_kernel, down, bias, ids, weights, y, n_tokens, k, d);
}
inline int MoeRoute(const MoeRouteArgs& a, void* stream) {
  ORCD_ELEMENTWISE(a.n_tokens, moe_route_kernel, a);
}
inline int Rope(const RopeArgs& a, void* stream) {
  const int64_t heads = a.target[0].heads + (a.n_targets > 1 ? a.target[1].heads : 0);
  ORCD_ELEMENTWISE(a.n_tokens * heads * (a.head_dim / 2), rope_kernel, a);
}
inline int DenseGetRows(uint32_t type, const void* w, int64_t cols, const int32_t* ids,
                        int64_t n_ids, float* out, void* stream) {
  ORCD_ELEMENTWISE(n_ids * cols, dense_get_rows_kernel, type, w, cols, ids, out, n_ids * cols);
}

inline int RmsNorm(const float* x, const float* gamma, float* y, int64_t groups, int64_t group,
                   float eps, void* stream) {
  if (groups <= 0) return 0;
  ORCD_KERNEL(RowGrid(groups), kThreads, Stream(stream), rms_norm_kernel)
  (x, gamma, y, groups, group, eps);
  return static_cast<int>(ORCD_LAUNCH_RESULT());
}
inline int AddRmsNorm(const float* a, const float* b, float* s, const float* gamma, float* y,
                      orcd_q8_x32* q8, int64_t rows, int64_t width, float eps, void* stream) {
  if (rows <= 0) return 0;
  if (q8 != nullptr && width % 32 != 0) return static_cast<int>(cudaErrorInvalidValue);
  ORCD_KERNEL(RowGrid(rows), kThreads, Stream(stream), add_rms_norm_kernel)
  (a, b, s, gamma, y, q8, rows, width, eps);
  return static_cast<int>(ORCD_LAUNCH_RESULT());
}
inline int LayerNorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows,
                     int64_t width, float eps, void* stream) {
  if (rows <= 0) return 0;
  ORCD_KERNEL(RowGrid(rows), kThreads, Stream(stream), layer_norm_kernel)
  (x, gamma, beta, y, rows, width, eps);
  return static_cast<int>(ORCD_LAUNCH_RESULT());
}
inline int Attention(const AttentionArgs& a, void* stream) {
  if (a.n_tokens <= 0) return 0;
  if (a.n_tokens > 65535 || a.head_dim > kMaxHeadDim ||
      (a.q8 != nullptr && (a.n_tokens != 1 || a.head_dim % 32 != 0)) ||
      (a.q8_kv && a.head_dim % 32 != 0))
    return static_cast<int>(cudaErrorInvalidValue);
  if (a.kv_splits > 1 && a.partial != nullptr) {  // decode rows
    const dim3 parts(static_cast<unsigned>(a.n_head), static_cast<unsigned>(a.kv_splits),
                     static_cast<unsigned>(a.n_tokens));
    ORCD_KERNEL(parts, kAttentionThreads, Stream(stream), attention_split_kernel)(a);
    if (cudaError_t e = ORCD_LAUNCH_RESULT(); e != cudaSuccess) return static_cast<int>(e);
    const dim3 heads(static_cast<unsigned>(a.n_head), static_cast<unsigned>(a.n_tokens));
    ORCD_KERNEL(heads, kAttentionThreads, Stream(stream), attention_combine_kernel)
    (a);
    return static_cast<int>(ORCD_LAUNCH_RESULT());  // the combination stored K and V
  }
  const dim3 grid(static_cast<unsigned>(a.n_head),
                  static_cast<unsigned>((a.n_tokens + kPrefillQueries - 1) / kPrefillQueries));
  ORCD_KERNEL(grid, kAttentionThreads, Stream(stream), attention_prefill_kernel)(a);
  if (cudaError_t e = ORCD_LAUNCH_RESULT(); e != cudaSuccess) return static_cast<int>(e);
  const dim3 store(static_cast<unsigned>(a.n_head_kv), static_cast<unsigned>(a.n_tokens));
  ORCD_KERNEL(store, kWarp * 4, Stream(stream), kv_store_kernel)(a);
  return static_cast<int>(ORCD_LAUNCH_RESULT());
}
inline int DenseMatvecIds(uint32_t type, const void* w, int64_t rows, int64_t cols,
                          int64_t expert_stride, const int32_t* ids, int64_t n, int64_t ids_per_x,
                          const float* x, int64_t x_stride, float* y, int64_t y_stride,
                          void* stream) {
  if (rows <= 0 || n <= 0) return 0;
  if (n > 65535) return static_cast<int>(cudaErrorInvalidValue);
  const dim3 grid(static_cast<unsigned>((rows + kDenseWarps - 1) / kDenseWarps),
                  static_cast<unsigned>(n));
  ORCD_KERNEL(grid, kDenseWarps * kWarp, Stream(stream), dense_matvec_kernel)
  (type, w, rows, cols, expert_stride, ids, ids_per_x, x, x_stride, y, y_stride);
  return static_cast<int>(ORCD_LAUNCH_RESULT());
}
inline int Argmax(const float* x, int64_t n, ArgmaxScratch scratch, int32_t* out, void* stream) {
  if (n <= 0 || n > INT32_MAX) return static_cast<int>(cudaErrorInvalidValue);
  const int64_t chunk = (n + kArgmaxParts - 1) / kArgmaxParts;
  const int64_t parts = (n + chunk - 1) / chunk;
  ORCD_KERNEL(static_cast<unsigned>(parts), kArgmaxThreads, Stream(stream), argmax_part_kernel)
  (x, n, chunk, scratch.values, scratch.ids);
  if (cudaError_t e = ORCD_LAUNCH_RESULT(); e != cudaSuccess) return static_cast<int>(e);
  ORCD_KERNEL(1, kArgmaxParts, Stream(stream), argmax_combine_kernel)
  (scratch.values, scratch.ids, parts, out);
  return static_cast<int>(ORCD_LAUNCH_RESULT());
}
inline int QuantizeQ8(const float* x, int64_t x_stride, int64_t rows, int64_t cols,
                      orcd_q8_x32* out, void* stream) {
  const int64_t runs = rows * (cols / 32);
  if (runs <= 0) return 0;
  if (cols % 32 != 0) return static_cast<int>(cudaErrorInvalidValue);
  const int64_t ctas = (runs + kQuantizeWarps - 1) / kQuantizeWarps;
  ORCD_KERNEL(static_cast<unsigned>(ctas > 65535 ? 65535 : ctas), kQuantizeWarps * kWarp,
              Stream(stream), quantize_q8_kernel)
  (x, x_stride, out, cols / 32, runs);
  return static_cast<int>(ORCD_LAUNCH_RESULT());
}
inline int SampleRows(const SampleRowsArgs& a, void* stream) {
  if (a.n_rows <= 0) return 0;
  ORCD_KERNEL(static_cast<unsigned>(a.n_rows), kSamplerThreads, Stream(stream), sample_rows_kernel)
  (a);
  return static_cast<int>(ORCD_LAUNCH_RESULT());
}
inline const char* ErrorName(int e) { return cudaGetErrorName(static_cast<cudaError_t>(e)); }

constexpr OpKernels MakeOpKernels(const char* name) {
  return OpKernels{
      name,         &Add,        &Mul,       &Glu,          &SwigluQ8,       &Gelu,
      &AddBias,     &Softcap,    &Scale,     &Positions,    &RmsNorm,        &AddRmsNorm,
      &LayerNorm,   &Rope,       &Attention, &DenseGetRows, &DenseMatvecIds, &MoeRoute,
      &MoeActivate, &MoeCombine, &ToHalf,    &QuantizeQ8,   &SampleRows,     &Argmax,
      &ErrorName};
}

#undef ORCD_ELEMENTWISE

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_OP_LAUNCHERS_H_
