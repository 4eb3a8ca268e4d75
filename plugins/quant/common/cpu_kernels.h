// Builds the CPU kernel set of a quant type: the portable and the AVX2+FMA
// variants of dequantize_row / get_rows / matmul, the reference quantizer, and
// the AVX-512 VNNI variant (AVX2's ops with its own matvec_q8 / matmul_q8).
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
#include "common/q8_pairs.h"
#endif

namespace orcd::quant {

namespace portable {
#define ORCD_QUANT_ISA_AVX2 0
#include "common/cpu_kernels-inl.h"
#undef ORCD_QUANT_ISA_AVX2
}  // namespace portable

#if ORCD_QUANT_HAVE_X86
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")  // ORCD_QUANT_AVX2_TARGET (no macros in pragmas)
namespace avx2 {
#define ORCD_QUANT_ISA_AVX2 1
#include "common/cpu_kernels-inl.h"
#undef ORCD_QUANT_ISA_AVX2
}  // namespace avx2
#pragma GCC pop_options

namespace avx512_vnni {

// T::dot_q8_vnni: T::dot_q8_avx2's integer sums, in the same eight lanes and
// with the same float scaling, so matvec_q8 gives identical bits (the
// K-quants; Q5_0 and Q8_0 have their own kernels, q8_row_lanes.h).
template <class T>
concept HasQ8DotVnni = avx2::HasQ8Dot<T> &&
    requires(const typename T::Block& b, const typename T::XBlock& x, __m256& acc) {
  T::dot_q8_vnni(b, x, acc);
};

// avx2::matvec_q8 with the VNNI block dot (kept in step with it).
template <HasQ8DotVnni T>
ORCD_QUANT_AVX512_VNNI void matvec_q8(const void* w, int64_t rows, int64_t cols, const float* x,
                                      float* y) {
  using XBlock = typename T::XBlock;
  if (cols > q8::kMaxCols) {
    avx2::matmul<T>(w, rows, cols, x, 1, y, rows);
    return;
  }
  XBlock xq[q8::kMaxCols / T::kElems];
  const int64_t row_blocks = cols / T::kElems;
  for (int64_t i = 0; i < row_blocks; ++i) q8::quantize_x(x + T::kElems * i, xq[i]);
  const auto* blocks = static_cast<const typename T::Block*>(w);
  for (int64_t r = 0; r < rows; ++r) {
    const typename T::Block* row = blocks + r * row_blocks;
    __m256 acc = _mm256_setzero_ps();
    for (int64_t b = 0; b < row_blocks; ++b) {
      avx2::prefetch_ahead(row + b);
      T::dot_q8_vnni(row[b], xq[b], acc);
    }
    y[r] = q8::hsum(acc);
  }
}

}  // namespace avx512_vnni
}  // namespace orcd::quant

#include "common/q8_pair_kernels.h"

namespace orcd::quant {
namespace avx512_vnni {

template <class T>
constexpr avx2::MatvecQ8Fn matvec_q8_or_avx2() {
  if constexpr (HasQ8DotVnni<T> && q8::HasPairedBlocks<T>) {
    return &matvec_q8_pairs<T>;
  } else if constexpr (HasQ8DotVnni<T>) {
    return &matvec_q8<T>;
  } else {
    return avx2::matvec_q8_or_null<T>();
  }
}

}  // namespace avx512_vnni
}  // namespace orcd::quant

#include "common/q8_matmul.h"

namespace orcd::quant {
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
                                           nullptr,
                                           nullptr,
                                           nullptr};
#if ORCD_QUANT_HAVE_X86
  const orcd_quant_cpu_ops avx2_ops = {kOpsSize,
                                       &avx2::dequantize_row<T>,
                                       &quantize_row<T>,
                                       &avx2::get_rows<T>,
                                       &avx2::matmul<T>,
                                       avx2::matvec_q8_or_null<T>(),
                                       avx2::matmul_q8_or_null<T>(),
                                       avx2::matmul_q8_decode_or_null<T>()};
  orcd_quant_cpu_ops vnni_ops = avx2_ops;
  vnni_ops.matvec_q8 = avx512_vnni::matvec_q8_or_avx2<T>();
  vnni_ops.matmul_q8 = avx512_vnni::matmul_q8_or_avx2<T>();
  // VNNI's matmul_q8 serves prompts and decode alike.
  vnni_ops.matmul_q8_decode =
      vnni_ops.matmul_q8 != nullptr ? vnni_ops.matmul_q8 : avx2_ops.matmul_q8_decode;
#else
  const orcd_quant_cpu_ops avx2_ops = portable_ops;
  const orcd_quant_cpu_ops vnni_ops = portable_ops;
#endif
  return CpuKernels{T::kType,
                    T::kName,
                    static_cast<uint32_t>(T::kElems),
                    static_cast<uint32_t>(sizeof(typename T::Block)),
                    portable_ops,
                    avx2_ops,
                    vnni_ops};
}

}  // namespace orcd::quant

#endif  // ORCD_QUANT_COMMON_CPU_KERNELS_H_
