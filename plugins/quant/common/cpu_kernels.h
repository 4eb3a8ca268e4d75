// Builds the CPU kernel set of a quant type: the portable and the AVX2+FMA
// variants of dequantize_row / get_rows / matmul, and the reference quantizer.
// Included by the per-type .cc files, which end with
//   extern const CpuKernels kCpuKernels_<T> = make_cpu_kernels<TCpu>();
#ifndef ORCD_QUANT_COMMON_CPU_KERNELS_H_
#define ORCD_QUANT_COMMON_CPU_KERNELS_H_

#include <stdint.h>

#include "common/block_codec.h"
#include "common/compiler.h"
#include "common/cpu_kernel_set.h"

#if ORCD_QUANT_HAVE_X86
#include <immintrin.h>

#include "common/q8_activations.h"
#endif

namespace orcd::quant {

namespace portable {
#define ORCD_QUANT_ISA_AVX2 0
#include "common/cpu_kernels-inl.h"
#undef ORCD_QUANT_ISA_AVX2
}  // namespace portable

#if ORCD_QUANT_HAVE_X86
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
#define ORCD_QUANT_ISA_AVX2 1
#include "common/cpu_kernels-inl.h"
#undef ORCD_QUANT_ISA_AVX2
}  // namespace avx2
#pragma GCC pop_options
#endif

// ggml's quantize_row_*_ref for a row of n elements (n a multiple of kElems):
// T::quantize(in, block) quantizes one block.
template <class T>
void quantize_row(const float* in, void* blocks, int64_t n) {
  auto* b = static_cast<typename T::Block*>(blocks);
  for (int64_t i = 0; i < n / T::kElems; ++i) T::quantize(in + i * T::kElems, b[i]);
}

template <class T>
constexpr CpuKernels make_cpu_kernels() {
  static_assert(covers_tiles_of_128<T>(), "chunk numbering breaks the 128-element tile rule");
  constexpr uint32_t kOpsSize = sizeof(orcd_quant_cpu_ops);
  const orcd_quant_cpu_ops portable_ops = {kOpsSize,
                                           &portable::dequantize_row<T>,
                                           &quantize_row<T>,
                                           &portable::get_rows<T>,
                                           &portable::matmul<T>,
                                           nullptr};
#if ORCD_QUANT_HAVE_X86
  const orcd_quant_cpu_ops avx2_ops = {kOpsSize,         &avx2::dequantize_row<T>,
                                       &quantize_row<T>, &avx2::get_rows<T>,
                                       &avx2::matmul<T>, avx2::matvec_q8_or_null<T>()};
#else
  const orcd_quant_cpu_ops avx2_ops = portable_ops;
#endif
  return CpuKernels{T::kType,
                    T::kName,
                    static_cast<uint32_t>(T::kElems),
                    static_cast<uint32_t>(sizeof(typename T::Block)),
                    portable_ops,
                    avx2_ops};
}

}  // namespace orcd::quant

#endif  // ORCD_QUANT_COMMON_CPU_KERNELS_H_
