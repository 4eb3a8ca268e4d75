// The 8-bit-activation decode path (orcd_quant_cpu_ops.matvec_q8), for each
// variant that has one (AVX2, AVX-512 VNNI): which types offer it, and that it
// computes exactly "x rounded to int8 with one
// scale per weight block's span (amax / 127, nearest), then W x" — checked against a float64
// emulation of that rounding, and against the fixtures' float64 y within the
// bound the rounding itself allows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "common/cpu_kernel_set.h"
#include "cpu_variant.h"
#include "quant_test_support.h"

namespace orcd::quant::test {
namespace {

// The types of the target files have the path (Q4_K_M of Qwen2.5-0.5B: Q5_0,
// Q8_0, Q4_K, Q6_K; of Phi-3-mini: Q4_K, Q6_K; GPT-OSS-20B's experts: MXFP4);
// a change that drops one loses the decode speed-up.
const std::set<std::string> kTypesWithQ8 = {"Q8_0", "Q5_0", "Q4_K", "Q6_K", "MXFP4"};

// x as matvec_q8 sees it, in double: one scale per weight block's span n
// (32, or 256 for the K-quants): d = amax / 127 (f32), q = nearest(x / d)
// computed as x * (1 / d) in f32, value d * q.
std::vector<double> RoundActivations(const std::vector<float>& x, size_t n) {
  std::vector<double> out(x.size());
  for (size_t b = 0; b < x.size(); b += n) {
    float amax = 0.0f;
    for (size_t i = b; i < b + n; ++i) amax = std::max(amax, std::fabs(x[i]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (size_t i = b; i < b + n; ++i) out[i] = double(d) * std::nearbyint(x[i] * id);
  }
  return out;
}

// Per row: sum_c |deq[r][c]| * (amax of c's n-block) / 254, the most that
// rounding x to 8 bits can move the dot product.
std::vector<double> RoundingBound(const std::vector<float>& deq, int64_t rows, int64_t cols,
                                  const std::vector<float>& x, int64_t n) {
  std::vector<double> bound(static_cast<size_t>(rows), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < cols; b += n) {
      double amax = 0.0, wsum = 0.0;
      for (int64_t c = b; c < b + n; ++c) {
        amax = std::max(amax, double(std::fabs(x[c])));
        wsum += std::fabs(deq[r * cols + c]);
      }
      bound[r] += wsum * amax / 254.0;
    }
  }
  return bound;
}

class QuantQ8Activations : public testing::TestWithParam<TypeAndIsa> {
 protected:
  void SetUp() override {
    ops_ = ops_for(*std::get<0>(GetParam()), std::get<1>(GetParam()));
    if (ops_ == nullptr) GTEST_SKIP() << missing_isa_reason(std::get<1>(GetParam()));
  }

  const orcd_quant_cpu_ops* ops_ = nullptr;
};

TEST_P(QuantQ8Activations, OfferedByTheTargetModelsTypesAndNeverByPortableCode) {
  const CpuKernels& k = *std::get<0>(GetParam());
  EXPECT_EQ(ops_->matvec_q8 != nullptr, kTypesWithQ8.count(k.name) == 1) << k.name;
  EXPECT_EQ(k.portable.matvec_q8, nullptr) << k.name;
}

// Random weights over 13 rows x 1024 columns (4 K-blocks, 32 Q8_0 blocks).
// Tolerance 2e-6 of sum |w * x|: the kernel sums exact integer products, so
// only the f32 scale products and the f32 accumulation round.
TEST_P(QuantQ8Activations, EqualsFloat64OfTheRoundedActivations) {
  const CpuKernels& k = *std::get<0>(GetParam());
  if (ops_->matvec_q8 == nullptr) GTEST_SKIP() << k.name << " has no q8 path";
  const int64_t rows = 13, cols = 1024;
  const std::vector<float> src = random_weights(rows, cols, 91);
  const int64_t row_bytes = cols / k.block_elems * k.block_bytes;
  std::vector<uint8_t> q(static_cast<size_t>(rows * row_bytes));
  for (int64_t r = 0; r < rows; ++r)
    k.portable.quantize_row(src.data() + r * cols, q.data() + r * row_bytes, cols);
  std::vector<float> deq(src.size());
  k.portable.dequantize_row(q.data(), deq.data(), rows * cols);

  for (uint64_t seed : {92u, 93u}) {
    std::vector<float> x = random_normal(cols, seed);
    if (seed == 93u) std::fill(x.begin() + 256, x.begin() + 512, 0.0f);  // all-zero x blocks
    std::vector<float> y(static_cast<size_t>(rows));
    ops_->matvec_q8(q.data(), rows, cols, x.data(), y.data());
    const std::vector<double> xr = RoundActivations(x, k.block_elems);
    const std::vector<double> scale = abs_product_sums(deq, rows, cols, x, 1);
    for (int64_t r = 0; r < rows; ++r) {
      double expect = 0.0;
      for (int64_t c = 0; c < cols; ++c) expect += double(deq[r * cols + c]) * xr[c];
      EXPECT_NEAR(y[r], expect, 2e-6 * scale[r]) << k.name << " row " << r << " seed " << seed;
    }
  }
}

// Against ggml's blocks and the fixtures' float64 y (x never rounded): the
// deviation stays within what rounding x to 8 bits can cause, and is not zero
// in total (the path really rounds).
TEST_P(QuantQ8Activations, StaysWithinTheRoundingBoundOfTheFixture) {
  const CpuKernels& k = *std::get<0>(GetParam());
  if (ops_->matvec_q8 == nullptr) GTEST_SKIP() << k.name << " has no q8 path";
  const std::optional<Golden> g = load_golden(k.name);
  ASSERT_TRUE(g.has_value());
  std::vector<float> y(static_cast<size_t>(g->rows));
  ops_->matvec_q8(g->q.data(), g->rows, g->cols, g->x.data(), y.data());
  const std::vector<double> bound = RoundingBound(g->deq, g->rows, g->cols, g->x, k.block_elems);
  double total_deviation = 0.0;
  for (int64_t r = 0; r < g->rows; ++r) {
    EXPECT_LE(std::fabs(y[r] - g->y[r]), bound[r] * 1.001 + 1e-6) << k.name << " row " << r;
    total_deviation += std::fabs(y[r] - g->y[r]);
  }
  EXPECT_GT(total_deviation, 0.0);
}

// The host splits rows across threads by offsetting w and y.
TEST_P(QuantQ8Activations, RowRangeEqualsSameRowsOfFullMatrix) {
  const CpuKernels& k = *std::get<0>(GetParam());
  if (ops_->matvec_q8 == nullptr) GTEST_SKIP() << k.name << " has no q8 path";
  const std::optional<Golden> g = load_golden(k.name);
  ASSERT_TRUE(g.has_value());
  const int64_t row_bytes = g->cols / k.block_elems * k.block_bytes;
  std::vector<float> full(static_cast<size_t>(g->rows)), part(3);
  ops_->matvec_q8(g->q.data(), g->rows, g->cols, g->x.data(), full.data());
  ops_->matvec_q8(g->q.data() + 2 * row_bytes, 3, g->cols, g->x.data(), part.data());
  for (int r = 0; r < 3; ++r) EXPECT_TRUE(same_bits(part[r], full[2 + r])) << r;
}

INSTANTIATE_TEST_SUITE_P(AllTypes, QuantQ8Activations,
                         testing::Combine(testing::ValuesIn(all_cpu_kernels()),
                                          testing::Values(Isa::kAvx2, Isa::kAvx512Vnni)),
                         type_and_isa_name);

}  // namespace
}  // namespace orcd::quant::test
