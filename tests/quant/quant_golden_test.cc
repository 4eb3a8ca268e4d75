// Every served type against ggml's own output (fixtures/quant): the
// dequantizer bit for bit, the reference quantizer byte for byte, and the
// one-token matmul against the float64 dot products.
#include <gtest/gtest.h>

#include <cmath>

#include "cpu_variant.h"
#include "quant_test_support.h"

namespace orcd::quant::test {
namespace {

class QuantGolden : public testing::TestWithParam<TypeAndIsa> {
 protected:
  void SetUp() override {
    kernels_ = std::get<0>(GetParam());
    ops_ = ops_for(*kernels_, std::get<1>(GetParam()));
    if (ops_ == nullptr) GTEST_SKIP() << missing_isa_reason(std::get<1>(GetParam()));
    golden_ = load_golden(kernels_->name);
    ASSERT_TRUE(golden_.has_value());
    ASSERT_EQ(golden_->cols % kernels_->block_elems, 0);
    row_bytes_ = golden_->cols / kernels_->block_elems * kernels_->block_bytes;
    ASSERT_EQ(golden_->q.size(), static_cast<size_t>(row_bytes_ * golden_->rows));
  }

  const CpuKernels* kernels_ = nullptr;
  const orcd_quant_cpu_ops* ops_ = nullptr;
  std::optional<Golden> golden_;
  int64_t row_bytes_ = 0;
};

TEST_P(QuantGolden, DequantizeRowIsBitIdenticalToGgml) {
  const Golden& g = *golden_;
  std::vector<float> out(g.deq.size());
  for (int64_t r = 0; r < g.rows; ++r) {
    ops_->dequantize_row(g.q.data() + r * row_bytes_, out.data() + r * g.cols, g.cols);
  }
  int mismatches = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!same_bits(out[i], g.deq[i]) && ++mismatches <= 5) {
      ADD_FAILURE() << g.type << " element " << i << " (row " << i / g.cols << ", column "
                    << i % g.cols << "): got " << out[i] << ", ggml " << g.deq[i];
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_P(QuantGolden, QuantizeRowIsByteIdenticalToGgml) {
  const Golden& g = *golden_;
  std::vector<uint8_t> q(g.q.size(), 0xA5);
  for (int64_t r = 0; r < g.rows; ++r) {
    ops_->quantize_row(g.src.data() + r * g.cols, q.data() + r * row_bytes_, g.cols);
  }
  int mismatches = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    if (q[i] != g.q[i] && ++mismatches <= 5) {
      ADD_FAILURE() << g.type << " byte " << i << " (block " << i / kernels_->block_bytes
                    << ", offset " << i % kernels_->block_bytes << "): got " << int{q[i]}
                    << ", ggml " << int{g.q[i]};
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// Tolerance 1e-5 relative: the decoded weights are exactly ggml's and x is
// used as is (no 8-bit activation quantization), so the only difference from
// the float64 reference is f32 rounding in the dot product — products rounded
// once each (or fused), partial sums of at most 256 terms in f32 lanes, folded
// into a double. Over 512 terms that is ~1e-7 relative; 1e-5 leaves room for
// rows whose sum partly cancels. (y.f32 itself is the float64 value rounded to
// f32, another 6e-8.)
TEST_P(QuantGolden, MatvecMatchesFloat64Reference) {
  const Golden& g = *golden_;
  std::vector<float> y(static_cast<size_t>(g.rows), NAN);
  ops_->matmul(g.q.data(), g.rows, g.cols, g.x.data(), 1, y.data(), g.rows);
  for (int64_t r = 0; r < g.rows; ++r) {
    EXPECT_NEAR(y[r], g.y[r], 1e-5 * std::fabs(g.y[r])) << g.type << " row " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, QuantGolden, testing::ValuesIn(all_types_and_isas()),
                         type_and_isa_name);

}  // namespace
}  // namespace orcd::quant::test
