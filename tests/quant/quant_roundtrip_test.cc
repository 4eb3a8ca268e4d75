// Quantize -> dequantize on fresh random data: the error must be what ggml's
// quantizer gives on data of this kind. The bound comes from the fixture's
// .json, which records ggml's own relative RMS error on its 8 x 512 source of
// the same recipe (N(0,1), 1 in 128 entries x10).
#include <gtest/gtest.h>

#include <cmath>

#include "cpu_variant.h"
#include "quant_test_support.h"

namespace orcd::quant::test {
namespace {

// Our data is another, larger draw of the same distribution (256 x 512). The
// outliers dominate the error, and ggml's number comes from one small sample
// with only 32 of them, so it is itself noisy: over seeds 1, 2, 3 and this
// one, our 256-row error divided by ggml's ranged 0.85 (Q6_K) to 1.19 (Q8_0)
// for the types served. 25% either way still fails any layout or rounding bug
// (a wrong nibble order, scale or sign gives relative errors of order 1).
constexpr double kMargin = 0.25;

class QuantRoundTrip : public testing::TestWithParam<const CpuKernels*> {};

TEST_P(QuantRoundTrip, RelativeRmsErrorMatchesGgml) {
  const CpuKernels& k = *GetParam();
  const auto ggml_rms = json_number(fixtures_dir() + "/" + k.name + ".json", "rms_err_rel");
  ASSERT_TRUE(ggml_rms.has_value()) << "no rms_err_rel in " << k.name << ".json";

  const int64_t rows = 256, cols = 512;
  const std::vector<float> src = random_weights(rows, cols, 20240513);
  const int64_t row_bytes = cols / k.block_elems * k.block_bytes;
  std::vector<uint8_t> q(static_cast<size_t>(rows * row_bytes));
  std::vector<float> deq(src.size());
  for (int64_t r = 0; r < rows; ++r) {
    k.portable.quantize_row(src.data() + r * cols, q.data() + r * row_bytes, cols);
    k.portable.dequantize_row(q.data() + r * row_bytes, deq.data() + r * cols, cols);
  }
  const double rms = relative_rms(deq, src);
  RecordProperty("rel_rms", std::to_string(rms));
  RecordProperty("ggml_rel_rms", std::to_string(*ggml_rms));
  EXPECT_LE(rms, *ggml_rms * (1 + kMargin)) << k.name;
  EXPECT_GE(rms, *ggml_rms * (1 - kMargin)) << k.name;
}

// All-zero blocks (e.g. padding) must encode and decode to exact zeros, and a
// constant block must not produce NaN or infinity.
TEST_P(QuantRoundTrip, ZeroAndConstantBlocks) {
  const CpuKernels& k = *GetParam();
  const int64_t n = 2 * 256;
  std::vector<float> src(static_cast<size_t>(n), 0.0f);
  std::fill(src.begin() + n / 2, src.end(), 0.75f);
  std::vector<uint8_t> q(static_cast<size_t>(n / k.block_elems * k.block_bytes));
  std::vector<float> deq(src.size(), NAN);
  k.portable.quantize_row(src.data(), q.data(), n);
  k.portable.dequantize_row(q.data(), deq.data(), n);
  for (int64_t i = 0; i < n / 2; ++i) ASSERT_EQ(deq[i], 0.0f) << k.name << " element " << i;
  for (int64_t i = n / 2; i < n; ++i) {
    ASSERT_TRUE(std::isfinite(deq[i])) << k.name << " element " << i;
    ASSERT_NEAR(deq[i], 0.75f, 0.1f) << k.name << " element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, QuantRoundTrip, testing::ValuesIn(all_cpu_kernels()), type_name);

}  // namespace
}  // namespace orcd::quant::test
