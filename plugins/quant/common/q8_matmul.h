// matmul_q8 (quant ABI 1.4) for the AVX2 and AVX-512 VNNI variants: the tiled
// driver of q8_matmul-inl.h instantiated with each variant's block dot.
// Included by cpu_kernels.h after both variants' matvec_q8.
#ifndef ORCD_QUANT_COMMON_Q8_MATMUL_H_
#define ORCD_QUANT_COMMON_Q8_MATMUL_H_

#if ORCD_QUANT_HAVE_X86

#include <type_traits>

#include "common/q8_pairs.h"
#include "common/q8_runs.h"

namespace orcd::quant {

using MatmulQ8Fn = void (*)(const void*, int64_t, int64_t, const float*, int64_t, float*, int64_t);

namespace avx2 {

// Types whose dot_q8_avx2 is q8::dot_by_runs (q8_runs.h): unpacked once per
// block for the tile, run by run in registers.
template <class T>
concept HasQ8Runs = HasQ8Dot<T> && requires(const typename T::Block& b, typename T::PrepAvx2& p,
                                            const typename T::XBlock& x, __m256i s, __m256& acc) {
  T::prepare_avx2(b, p);
  T::sumi_init_avx2(p, x);
  T::finish_avx2(p, x, s, acc);
};

template <class T>
struct RunsQ8Dot {
  using Prep = typename T::PrepAvx2;
  using XBlock = typename T::XBlock;
  static constexpr int kRuns = q8::kRunsPer256;
  ORCD_QUANT_AVX2 static void prepare(const typename T::Block& b, Prep& p) {
    T::prepare_avx2(b, p);
  }
  ORCD_QUANT_AVX2 static __m256i init(const Prep& p, const XBlock& x) {
    return T::sumi_init_avx2(p, x);
  }
  ORCD_QUANT_AVX2 static __m256i x_run(const XBlock& x, int i) { return q8::load_q(x, 32 * i); }
  ORCD_QUANT_AVX2 static __m256i step(const Prep& p, int i, __m256i xv, __m256i s) {
    return q8::run_step(p.q[i], xv, p.scales[i], s);
  }
  ORCD_QUANT_AVX2 static void finish(const Prep& p, const XBlock& x, __m256i s, __m256& acc) {
    T::finish_avx2(p, x, s, acc);
  }
};

#define ORCD_Q8_MATMUL_TARGET ORCD_QUANT_AVX2
#include "common/q8_matmul-inl.h"
#undef ORCD_Q8_MATMUL_TARGET

#include "common/q8_pair_tiles_avx2.h"

// Only the K-quants: for 32-element blocks the per-block float accumulation
// (one conversion and FMA per 32 products, which matvec_q8's bits require)
// costs more than the host's f32 GEMM on decoded tiles it would replace
// (Qwen2.5-0.5B shape, 2 threads, AVX2 Zen 3 VM: 133-138 prompt tok/s with
// q8_pair_tiles_avx2.h's kernel against 145-154).
template <class T>
constexpr MatmulQ8Fn matmul_q8_or_null() {
  if constexpr (HasQ8Runs<T>) {
    return &matmul_q8_tiled<T, RunsQ8Dot<T>, &matmul<T>>;
  } else {
    return nullptr;
  }
}

// Generated tokens (ABI 1.9): matmul_q8 where there is one, else Q5_0 /
// Q8_0's tiles (one unpacking per block for eight tokens; a batched decode
// step of eight sequences, same VM: 77-91 against 55 tok/s with matvec_q8
// token by token).
template <class T>
constexpr MatmulQ8Fn matmul_q8_decode_or_null() {
  if constexpr (HasQ8Runs<T>) {
    return matmul_q8_or_null<T>();
  } else if constexpr (HasPairedQ8Weights<T>) {
    return &matmul_q8_pair_tiles<T>;
  } else {
    return nullptr;
  }
}

}  // namespace avx2

namespace avx512_vnni {

// T::prepare_vnni(block, prep) unpacks a block once (nibbles, scales) and
// T::dot_prepared_vnni(prep, x, acc) finishes it for one token; the
// type's dot_q8_vnni is these two in a row, so matvec_q8 shares the bits.
template <class T>
concept HasPreparedVnni = HasQ8DotVnni<T> &&
    requires(const typename T::Block& b, typename T::PrepVnni& p, const typename T::XBlock& x,
             __m256& acc) {
  T::prepare_vnni(b, p);
  T::dot_prepared_vnni(p, x, acc);
};

template <class T>
struct PreparedQ8Dot {
  using Prep = typename T::PrepVnni;
  ORCD_QUANT_AVX512_VNNI static void prepare(const typename T::Block& b, Prep& p) {
    T::prepare_vnni(b, p);
  }
  ORCD_QUANT_AVX512_VNNI static void dot(const Prep& p, const typename T::XBlock& x, __m256& acc) {
    T::dot_prepared_vnni(p, x, acc);
  }
};

#define ORCD_Q8_MATMUL_TARGET ORCD_QUANT_AVX512_VNNI
#include "common/q8_matmul-inl.h"
#undef ORCD_Q8_MATMUL_TARGET

// The K-quants (an unpacking step shared by a tile's tokens), and Q5_0 /
// Q8_0 (16 rows in a zmm's lanes, q8_row_lanes.h): the host uses matmul_q8
// for prompts and for several generated tokens at once (batched decode).
// Prompts of the Qwen2.5-0.5B shape on a 2-core Zen 5 VM: ~520 tok/s against
// ~355 with two blocks per row and zmm, and 330-350 with the f32 GEMM.
template <class T>
constexpr MatmulQ8Fn matmul_q8_or_avx2() {
  if constexpr (HasQ8DotVnni<T> && q8::HasPairedBlocks<T>) {
    return &matmul_q8_pairs<T>;
  } else if constexpr (HasPreparedVnni<T>) {
    return &matmul_q8_tiled<T, PreparedQ8Dot<T>, &avx2::matmul<T>>;
  } else {
    return avx2::matmul_q8_or_null<T>();
  }
}

}  // namespace avx512_vnni

}  // namespace orcd::quant

#endif  // ORCD_QUANT_HAVE_X86

#endif  // ORCD_QUANT_COMMON_Q8_MATMUL_H_
