#include "host/engine/cpu/gemm_f32.h"

#include <cstring>
#include <utility>

#include "host/engine/cpu/simd.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define ORCD_GEMM_X86 1
#define ORCD_AVX2 __attribute__((target("avx2,fma")))
#define ORCD_AVX512 __attribute__((target("avx512f,fma")))
#else
#define ORCD_GEMM_X86 0
#endif

namespace orcd::engine::cpu {
namespace {

void Store(float* c, float v, bool accumulate) { *c = accumulate ? *c + v : v; }

void GemmPortable(const float* a, int64_t lda, int64_t m, const float* b, int64_t ldb, int64_t n,
                  int64_t k, float* c, int64_t ldc, bool accumulate) {
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t r = 0; r < m; ++r) {
      float acc[8] = {};
      int64_t i = 0;
      for (; i + 8 <= k; i += 8) {
        for (int j = 0; j < 8; ++j) acc[j] += a[r * lda + i + j] * b[t * ldb + i + j];
      }
      float s = 0.0f;
      for (float v : acc) s += v;
      for (; i < k; ++i) s += a[r * lda + i] * b[t * ldb + i];
      Store(c + t * ldc + r, s, accumulate);
    }
  }
}

#if ORCD_GEMM_X86

ORCD_AVX2 inline float HorizontalSum(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 h = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
}

// The small constant loops must be unrolled (#pragma GCC unroll) or the
// accumulators live in memory instead of registers.
// kRows x kTokens dot products of length k (k8 = k rounded down to 8 in
// vectors, the rest scalar). The accumulators stay in registers: at most
// 3 x 4 = 12 of the 16 ymm registers.
template <int kRows, int kTokens>
ORCD_AVX2 void MicroKernel(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t k,
                           float* c, int64_t ldc, bool accumulate) {
  __m256 acc[kRows][kTokens];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) acc[r][t] = _mm256_setzero_ps();
  }
  const int64_t k8 = k & ~int64_t{7};
  for (int64_t i = 0; i < k8; i += 8) {
    __m256 av[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) av[r] = _mm256_loadu_ps(a + r * lda + i);
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) {
      const __m256 bv = _mm256_loadu_ps(b + t * ldb + i);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) acc[r][t] = _mm256_fmadd_ps(av[r], bv, acc[r][t]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) {
      float s = HorizontalSum(acc[r][t]);
      for (int64_t i = k8; i < k; ++i) s += a[r * lda + i] * b[t * ldb + i];
      Store(c + t * ldc + r, s, accumulate);
    }
  }
}

// Through memory: GCC 12's _mm512_reduce_add_ps trips -Wuninitialized, and
// this runs once per 512 products.
ORCD_AVX512 inline float HorizontalSum512(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float s = 0.0f;
  for (float l : lanes) s += l;
  return s;
}

// The same with 512-bit vectors and 32 registers: 4 rows x 6 tokens = 24
// accumulators. Twice the FMA width of AVX2 on CPUs with full-width units.
template <int kRows, int kTokens>
ORCD_AVX512 void MicroKernel512(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t k,
                                float* c, int64_t ldc, bool accumulate) {
  __m512 acc[kRows][kTokens];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) acc[r][t] = _mm512_setzero_ps();
  }
  const int64_t k16 = k & ~int64_t{15};
  for (int64_t i = 0; i < k16; i += 16) {
    __m512 av[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) av[r] = _mm512_loadu_ps(a + r * lda + i);
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) {
      const __m512 bv = _mm512_loadu_ps(b + t * ldb + i);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) acc[r][t] = _mm512_fmadd_ps(av[r], bv, acc[r][t]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) {
      float s = HorizontalSum512(acc[r][t]);
      for (int64_t i = k16; i < k; ++i) s += a[r * lda + i] * b[t * ldb + i];
      Store(c + t * ldc + r, s, accumulate);
    }
  }
}

using KernelFn = void (*)(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t k,
                          float* c, int64_t ldc, bool accumulate);

// kTable[rows - 1][tokens - 1] = Kernel<rows, tokens>.
template <template <int, int> class K, int kMaxRows, int kMaxTokens>
struct KernelTable {
  KernelFn fn[kMaxRows][kMaxTokens];
  constexpr KernelTable() : fn{} { Fill<1>(); }
  template <int R>
  constexpr void Fill() {
    FillTokens<R>(std::make_integer_sequence<int, kMaxTokens>{});
    if constexpr (R < kMaxRows) Fill<R + 1>();
  }
  template <int R, int... T>
  constexpr void FillTokens(std::integer_sequence<int, T...>) {
    ((fn[R - 1][T] = &K<R, T + 1>::Run), ...);
  }
};

// Token groups outside, row groups inside: the activations of one token group
// (kTokens x k floats) stay in L1 while the decoded weight tile is swept.
template <int kMaxRows, int kMaxTokens>
void Sweep(const KernelFn (&table)[kMaxRows][kMaxTokens], const float* a, int64_t lda, int64_t m,
           const float* b, int64_t ldb, int64_t n, int64_t k, float* c, int64_t ldc,
           bool accumulate) {
  for (int64_t t = 0; t < n; t += kMaxTokens) {
    const int64_t nt = n - t < kMaxTokens ? n - t : kMaxTokens;
    for (int64_t r = 0; r < m; r += kMaxRows) {
      const int64_t nr = m - r < kMaxRows ? m - r : kMaxRows;
      table[nr - 1][nt - 1](a + r * lda, lda, b + t * ldb, ldb, k, c + t * ldc + r, ldc,
                            accumulate);
    }
  }
}

template <int kRows, int kTokens>
struct Avx512Kernel {
  static void Run(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t k, float* c,
                  int64_t ldc, bool accumulate) {
    MicroKernel512<kRows, kTokens>(a, lda, b, ldb, k, c, ldc, accumulate);
  }
};

template <int kRows, int kTokens>
struct Avx2Kernel {
  static void Run(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t k, float* c,
                  int64_t ldc, bool accumulate) {
    MicroKernel<kRows, kTokens>(a, lda, b, ldb, k, c, ldc, accumulate);
  }
};

constexpr KernelTable<Avx512Kernel, 4, 6> kAvx512Kernels;
constexpr KernelTable<Avx2Kernel, 3, 4> kAvx2Kernels;

bool CpuHasAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}

#endif

}  // namespace

bool GemmIsaAvailable(GemmIsa isa) {
#if ORCD_GEMM_X86
  static const bool avx2 = std::strcmp(Simd().name, "avx2") == 0;
  static const bool avx512 = avx2 && CpuHasAvx512();
  if (isa == GemmIsa::kAvx512) return avx512;
  if (isa == GemmIsa::kAvx2) return avx2;
#else
  if (isa != GemmIsa::kPortable) return false;
#endif
  return true;
}

void GemmRowsByTokensOn(GemmIsa isa, const float* a, int64_t lda, int64_t m, const float* b,
                        int64_t ldb, int64_t n, int64_t k, float* c, int64_t ldc, bool accumulate) {
#if ORCD_GEMM_X86
  if (isa == GemmIsa::kAvx512) {
    Sweep(kAvx512Kernels.fn, a, lda, m, b, ldb, n, k, c, ldc, accumulate);
    return;
  }
  if (isa == GemmIsa::kAvx2) {
    Sweep(kAvx2Kernels.fn, a, lda, m, b, ldb, n, k, c, ldc, accumulate);
    return;
  }
#endif
  GemmPortable(a, lda, m, b, ldb, n, k, c, ldc, accumulate);
}

void GemmRowsByTokens(const float* a, int64_t lda, int64_t m, const float* b, int64_t ldb,
                      int64_t n, int64_t k, float* c, int64_t ldc, bool accumulate) {
  static const GemmIsa best = GemmIsaAvailable(GemmIsa::kAvx512) ? GemmIsa::kAvx512
                              : GemmIsaAvailable(GemmIsa::kAvx2) ? GemmIsa::kAvx2
                                                                 : GemmIsa::kPortable;
  GemmRowsByTokensOn(best, a, lda, m, b, ldb, n, k, c, ldc, accumulate);
}

}  // namespace orcd::engine::cpu
