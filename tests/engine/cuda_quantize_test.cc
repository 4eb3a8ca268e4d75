// The backend's activation rounding for the plugins' matvec_q8 (ABI 1.3), on
// the emulated device, against the rule orcd/plugin.h states, written out
// independently in tests/quant (round_to_q8_x32): the same scale bits and the
// same 8-bit values, including an all-zero run (d = 0) and rows further apart
// than they are wide (x_stride > cols, as MOE inputs are laid out).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "host/engine/cuda/op_kernels.h"
#include "quant_test_support.h"

namespace orcd::testing {
namespace {

TEST(CudaQuantizeQ8, RoundsAsTheAbiStates) {
  constexpr int64_t kRows = 3, kCols = 96, kStride = 101;
  std::vector<float> x = quant::test::random_normal(kRows * kStride, 41);
  for (int i = 0; i < 32; ++i) x[kStride + 32 + i] = 0.0f;  // row 1, run 1: all zero
  x[2 * kStride + 5] = 1000.0f;                             // one outlier dominates its run
  std::vector<orcd_q8_x32> got(kRows * kCols / 32);
  std::memset(got.data(), 0x5A, got.size() * sizeof(orcd_q8_x32));
  const auto& k = engine::cuda::EmulatedOpKernels();
  ASSERT_EQ(k.quantize_q8(x.data(), kStride, kRows, kCols, got.data(), nullptr), 0);

  for (int64_t r = 0; r < kRows; ++r) {
    const std::vector<float> row(x.begin() + r * kStride, x.begin() + r * kStride + kCols);
    const std::vector<orcd_q8_x32> expect = quant::test::round_to_q8_x32(row);
    for (int64_t run = 0; run < kCols / 32; ++run) {
      const orcd_q8_x32& g = got[r * kCols / 32 + run];
      EXPECT_TRUE(quant::test::same_bits(g.d, expect[run].d)) << "row " << r << " run " << run;
      for (int i = 0; i < 32; ++i) {
        ASSERT_EQ(g.qs[i], expect[run].qs[i]) << "row " << r << " run " << run << " value " << i;
      }
    }
  }
  EXPECT_EQ(got[1 * kCols / 32 + 1].d, 0.0f);
  EXPECT_EQ(got[2 * kCols / 32].qs[5], 127);

  EXPECT_NE(k.quantize_q8(x.data(), kStride, 1, 33, got.data(), nullptr), 0)
      << "columns that are not whole runs must be refused";
}

}  // namespace
}  // namespace orcd::testing
