// The prefill kernel against a float64 reference on every edge the tiling
// has: row and token counts that are not multiples of the register blocks,
// lengths that are not multiples of the vector width, strided outputs, and
// accumulation into existing values; and a token's bits against its company.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "host/engine/cpu/gemm_f32.h"

namespace orcd::engine::cpu {
namespace {

class GemmVariants : public ::testing::TestWithParam<GemmIsa> {};

TEST_P(GemmVariants, MatchReferenceOnOddShapes) {
  if (!GemmIsaAvailable(GetParam())) GTEST_SKIP() << "this CPU cannot run the variant";
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int64_t m : {1, 2, 3, 4, 5, 7, 12, 13, 16, 17, 33}) {
    for (int64_t n : {1, 4, 5, 6, 7, 13}) {
      for (int64_t k : {8, 17, 64, 100, 512}) {
        for (bool accumulate : {false, true}) {
          const int64_t lda = k + 3, ldb = k + 5, ldc = m + 2;
          std::vector<float> a(static_cast<size_t>(m * lda)), b(static_cast<size_t>(n * ldb));
          for (float& v : a) v = normal(rng);
          for (float& v : b) v = normal(rng);
          std::vector<float> c(static_cast<size_t>(n * ldc), 0.5f);
          GemmRowsByTokensOn(GetParam(), a.data(), lda, m, b.data(), ldb, n, k, c.data(), ldc,
                             accumulate);
          for (int64_t t = 0; t < n; ++t) {
            for (int64_t r = 0; r < m; ++r) {
              double want = accumulate ? 0.5 : 0.0, scale = 0.0;
              for (int64_t i = 0; i < k; ++i) {
                want += static_cast<double>(a[r * lda + i]) * b[t * ldb + i];
                scale += std::fabs(static_cast<double>(a[r * lda + i]) * b[t * ldb + i]);
              }
              ASSERT_NEAR(c[t * ldc + r], want, 1e-5 * (scale + 1.0))
                  << "m " << m << " n " << n << " k " << k << " row " << r << " token " << t;
            }
            // The padding between tokens' outputs is not touched.
            for (int64_t r = m; r < ldc; ++r) ASSERT_EQ(c[t * ldc + r], 0.5f);
          }
        }
      }
    }
  }
}

// Batch invariance starts here: a prompt token's outputs must carry the same
// bits whether it is multiplied alone, first or last among many, or beside
// another sequence's tokens (chunked prefill and the step's other sequences
// regroup tokens freely). Exact equality, no tolerance.
TEST_P(GemmVariants, TokenOutputsIgnoreTheOtherTokensInTheCall) {
  if (!GemmIsaAvailable(GetParam())) GTEST_SKIP() << "this CPU cannot run the variant";
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // Rows, tokens and length that none of the register blocks (3 x 4, 4 x 6) or
  // vector widths (8, 16) divide: partial groups and scalar tails everywhere.
  const int64_t m = 37, n = 14, k = 700;
  std::vector<float> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(n * k));
  for (float& v : a) v = normal(rng);
  for (float& v : b) v = normal(rng);
  for (bool accumulate : {false, true}) {
    std::vector<float> all(static_cast<size_t>(n * m), 0.25f);
    GemmRowsByTokensOn(GetParam(), a.data(), k, m, b.data(), k, n, k, all.data(), m, accumulate);
    for (int64_t t0 = 0; t0 < n; ++t0) {
      for (int64_t count : {int64_t{1}, int64_t{3}, n - t0}) {
        if (t0 + count > n) continue;
        std::vector<float> part(static_cast<size_t>(count * m), 0.25f);
        GemmRowsByTokensOn(GetParam(), a.data(), k, m, b.data() + t0 * k, k, count, k, part.data(),
                           m, accumulate);
        for (int64_t t = 0; t < count; ++t) {
          for (int64_t r = 0; r < m; ++r) {
            ASSERT_EQ(part[t * m + r], all[(t0 + t) * m + r])
                << "token " << t0 + t << " in a call of " << count << " row " << r;
          }
        }
      }
    }
  }
}

std::string IsaName(const ::testing::TestParamInfo<GemmIsa>& info) {
  switch (info.param) {
    case GemmIsa::kAvx512:
      return "avx512";
    case GemmIsa::kAvx2:
      return "avx2";
    default:
      return "portable";
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, GemmVariants,
                         ::testing::Values(GemmIsa::kPortable, GemmIsa::kAvx2, GemmIsa::kAvx512),
                         IsaName);

}  // namespace
}  // namespace orcd::engine::cpu
