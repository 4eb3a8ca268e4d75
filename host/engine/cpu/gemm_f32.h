// A small f32 matrix-matrix kernel for prefill: many tokens against a tile of
// weight rows that was just decoded into a cache-sized f32 buffer. Register
// blocking (4 rows x 6 tokens per step with AVX-512F, 3 x 4 with AVX2) reuses
// every loaded weight vector for several tokens and every activation vector
// for several rows, so the FMA units, not the loads, set the pace — unlike
// one dot product per (row, token).
#ifndef ORCD_HOST_ENGINE_CPU_GEMM_F32_H_
#define ORCD_HOST_ENGINE_CPU_GEMM_F32_H_

#include <cstdint>

namespace orcd::engine::cpu {

// c[t * ldc + r] (+)= sum_{i<k} a[r * lda + i] * b[t * ldb + i]
// for r in [0, m), t in [0, n). accumulate: add to c instead of storing.
// AVX2+FMA where the CPU has it, portable C++ otherwise.
void GemmRowsByTokens(const float* a, int64_t lda, int64_t m, const float* b, int64_t ldb,
                      int64_t n, int64_t k, float* c, int64_t ldc, bool accumulate);

// One variant by name, for tests: every variant this CPU can run must agree.
enum class GemmIsa { kPortable, kAvx2, kAvx512 };
bool GemmIsaAvailable(GemmIsa isa);
void GemmRowsByTokensOn(GemmIsa isa, const float* a, int64_t lda, int64_t m, const float* b,
                        int64_t ldb, int64_t n, int64_t k, float* c, int64_t ldc, bool accumulate);

}  // namespace orcd::engine::cpu

#endif  // ORCD_HOST_ENGINE_CPU_GEMM_F32_H_
