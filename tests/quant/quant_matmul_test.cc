// Properties of the CPU kernels beyond the fixtures: many-token matmul equals
// one token at a time, row ranges (how the host splits work across threads),
// get_rows, and the AVX2 and portable variants agreeing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "cpu_variant.h"
#include "quant_test_support.h"

namespace orcd::quant::test {
namespace {

// Tokens built from the fixture's x: token 0 is x, the others permutations of
// x with different scales, so every token has realistic, distinct values.
std::vector<float> make_tokens(const std::vector<float>& x, int64_t n_tokens) {
  std::vector<float> out;
  std::vector<float> perm = x;
  std::mt19937 rng(1234);
  for (int64_t t = 0; t < n_tokens; ++t) {
    if (t > 0) std::shuffle(perm.begin(), perm.end(), rng);
    const float scale = 1.0f + 0.25f * static_cast<float>(t % 5);
    for (float v : perm) out.push_back(v * scale);
  }
  return out;
}

class QuantCpuKernels : public testing::TestWithParam<TypeAndIsa> {
 protected:
  void SetUp() override {
    kernels_ = std::get<0>(GetParam());
    ops_ = ops_for(*kernels_, std::get<1>(GetParam()));
    if (ops_ == nullptr) GTEST_SKIP() << missing_isa_reason(std::get<1>(GetParam()));
    golden_ = load_golden(kernels_->name);
    ASSERT_TRUE(golden_.has_value());
    row_bytes_ = golden_->cols / kernels_->block_elems * kernels_->block_bytes;
  }

  std::vector<float> matvec(const std::vector<float>& x) const {
    std::vector<float> y(static_cast<size_t>(golden_->rows));
    ops_->matmul(golden_->q.data(), golden_->rows, golden_->cols, x.data(), 1, y.data(),
                 golden_->rows);
    return y;
  }

  const CpuKernels* kernels_ = nullptr;
  const orcd_quant_cpu_ops* ops_ = nullptr;
  std::optional<Golden> golden_;
  int64_t row_bytes_ = 0;
};

// 40 tokens cross the kernels' 32-token tile. Results must be bit-identical to
// one token at a time: each token's dot product is computed the same way.
TEST_P(QuantCpuKernels, ManyTokensEqualOneTokenAtATime) {
  const Golden& g = *golden_;
  for (int64_t n_tokens : {1, 3, 7, 40}) {
    const std::vector<float> x = make_tokens(g.x, n_tokens);
    const int64_t y_stride = g.rows + 3;  // padding between tokens must stay untouched
    std::vector<float> y(static_cast<size_t>(n_tokens * y_stride), -777.0f);
    ops_->matmul(g.q.data(), g.rows, g.cols, x.data(), n_tokens, y.data(), y_stride);
    for (int64_t t = 0; t < n_tokens; ++t) {
      const std::vector<float> xt(x.begin() + t * g.cols, x.begin() + (t + 1) * g.cols);
      const std::vector<float> expect = matvec(xt);
      for (int64_t r = 0; r < g.rows; ++r) {
        EXPECT_TRUE(same_bits(y[t * y_stride + r], expect[r]))
            << g.type << " n_tokens " << n_tokens << " token " << t << " row " << r << ": "
            << y[t * y_stride + r] << " vs " << expect[r];
      }
      for (int64_t r = g.rows; r < y_stride; ++r) EXPECT_EQ(y[t * y_stride + r], -777.0f);
    }
  }
}

// The host splits rows across threads by offsetting w and y.
TEST_P(QuantCpuKernels, RowRangeEqualsSameRowsOfFullMatrix) {
  const Golden& g = *golden_;
  const std::vector<float> full = matvec(g.x);
  const int64_t first = 3, count = 4;
  std::vector<float> part(static_cast<size_t>(count));
  ops_->matmul(g.q.data() + first * row_bytes_, count, g.cols, g.x.data(), 1, part.data(), count);
  for (int64_t r = 0; r < count; ++r) EXPECT_TRUE(same_bits(part[r], full[first + r])) << r;
}

TEST_P(QuantCpuKernels, GetRowsEqualsDequantizedRows) {
  const Golden& g = *golden_;
  const std::vector<int32_t> ids = {7, 0, 3, 3, 5};
  std::vector<float> out(ids.size() * g.cols, NAN);
  ops_->get_rows(g.q.data(), g.cols, ids.data(), static_cast<int64_t>(ids.size()), out.data());
  for (size_t i = 0; i < ids.size(); ++i) {
    for (int64_t c = 0; c < g.cols; ++c) {
      ASSERT_TRUE(same_bits(out[i * g.cols + c], g.deq[ids[i] * g.cols + c]))
          << g.type << " id " << ids[i] << " column " << c;
    }
  }
}

// With no tokens or no rows nothing is written.
TEST_P(QuantCpuKernels, EmptyMatmulWritesNothing) {
  const Golden& g = *golden_;
  std::vector<float> y(static_cast<size_t>(g.rows), -1.0f);
  ops_->matmul(g.q.data(), g.rows, g.cols, g.x.data(), 0, y.data(), g.rows);
  ops_->matmul(g.q.data(), 0, g.cols, g.x.data(), 1, y.data(), g.rows);
  for (float v : y) EXPECT_EQ(v, -1.0f);
}

INSTANTIATE_TEST_SUITE_P(AllTypes, QuantCpuKernels, testing::ValuesIn(all_types_and_isas()),
                         type_and_isa_name);

// ---- AVX2 against portable ----------------------------------------------------

class QuantAvx2VsPortable : public testing::TestWithParam<const CpuKernels*> {
 protected:
  void SetUp() override {
    if (!cpu_has_avx2_fma()) GTEST_SKIP() << "this CPU has no AVX2+FMA: nothing to compare";
  }
};

// Random weights (not the fixture) over a wider matrix: dequantize and
// get_rows bit-identical; matmul within 1e-6 of sum |w x| (the two variants
// only differ in fused vs separate multiply-add and in lane order).
TEST_P(QuantAvx2VsPortable, AgreeOnRandomData) {
  const CpuKernels& k = *GetParam();
  const int64_t rows = 13, cols = 4 * 256, n_tokens = 5;
  const std::vector<float> src = random_weights(rows, cols, 77);
  const int64_t row_bytes = cols / k.block_elems * k.block_bytes;
  std::vector<uint8_t> q(static_cast<size_t>(rows * row_bytes));
  for (int64_t r = 0; r < rows; ++r) {
    k.portable.quantize_row(src.data() + r * cols, q.data() + r * row_bytes, cols);
  }

  std::vector<float> deq_p(src.size()), deq_a(src.size());
  k.portable.dequantize_row(q.data(), deq_p.data(), rows * cols);
  k.avx2.dequantize_row(q.data(), deq_a.data(), rows * cols);
  for (size_t i = 0; i < src.size(); ++i) ASSERT_TRUE(same_bits(deq_a[i], deq_p[i])) << i;

  std::vector<int32_t> ids(static_cast<size_t>(rows));
  std::iota(ids.rbegin(), ids.rend(), 0);
  std::vector<float> rows_p(src.size()), rows_a(src.size());
  k.portable.get_rows(q.data(), cols, ids.data(), rows, rows_p.data());
  k.avx2.get_rows(q.data(), cols, ids.data(), rows, rows_a.data());
  for (size_t i = 0; i < src.size(); ++i) ASSERT_TRUE(same_bits(rows_a[i], rows_p[i])) << i;

  const std::vector<float> x = random_normal(n_tokens * cols, 78);
  std::vector<float> y_p(static_cast<size_t>(rows * n_tokens)), y_a(y_p.size());
  k.portable.matmul(q.data(), rows, cols, x.data(), n_tokens, y_p.data(), rows);
  k.avx2.matmul(q.data(), rows, cols, x.data(), n_tokens, y_a.data(), rows);
  const std::vector<double> scale = abs_product_sums(deq_p, rows, cols, x, n_tokens);
  const std::vector<double> ref = reference_matmul(deq_p, rows, cols, x, n_tokens);
  for (size_t i = 0; i < y_p.size(); ++i) {
    EXPECT_NEAR(y_a[i], y_p[i], 1e-6 * scale[i]) << k.name << " output " << i;
    EXPECT_NEAR(y_a[i], ref[i], 1e-6 * scale[i]) << k.name << " output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, QuantAvx2VsPortable, testing::ValuesIn(all_cpu_kernels()),
                         type_name);

}  // namespace
}  // namespace orcd::quant::test
