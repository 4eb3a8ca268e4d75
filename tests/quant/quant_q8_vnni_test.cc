// The AVX-512 VNNI variant of the CPU kernels: AVX2's ops except matvec_q8.
// The K-quants' VNNI kernels must give the AVX2 kernels' bits exactly (both
// sum the same integer products into the same eight int32 lanes and scale
// them with the same float operations). Q5_0 and Q8_0 put rows in lanes
// (q8_row_lanes.h): their bits are pinned to a scalar statement of that
// arithmetic here, and AVX2's stay within float rounding of them.
// quant_q8_activation_test.cc runs the float64 checks on both variants; this
// file pins the variants on shapes and block contents those checks do not
// reach.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/cpu_kernel_set.h"
#include "cpu_variant.h"
#include "orcd/cpp/half.h"
#include "quant_test_support.h"

namespace orcd::quant::test {
namespace {

// The types with their own VNNI matvec_q8 (the others reuse AVX2's), and the
// byte offsets of their fp16 fields (every other block byte is free bits).
const std::map<std::string, std::vector<int>> kVnniTypes = {
    {"Q5_0", {0}},
    {"Q8_0", {0}},
    {"Q4_K", {0, 2}},
    {"Q6_K", {208}},
};

// Those of them whose VNNI kernels put rows in lanes (q8_row_lanes.h).
bool RowLanes(const std::string& type) { return type == "Q5_0" || type == "Q8_0"; }

// q8_row_lanes.h's arithmetic, stated plainly for one row: x rounded per
// 32-block, each block's exact integer dot T, then acc = fma(float(T),
// d_w * d_x, acc) block after block. `scale` gets sum |T * d_w * d_x|, the
// size of the float rounding any other order of the same terms may differ by.
float RowLaneReference(const CpuKernels& k, const uint8_t* row, int64_t cols,
                       const std::vector<orcd_q8_x32>& xq, double* scale) {
  const int64_t blocks = cols / 32;
  // The block's integers: dequantized with its scale set to 1.0 (exact).
  std::vector<uint8_t> unit(row, row + blocks * k.block_bytes);
  for (int64_t b = 0; b < blocks; ++b) {
    const uint16_t one = 0x3C00;
    std::memcpy(unit.data() + b * k.block_bytes, &one, 2);
  }
  std::vector<float> ints(static_cast<size_t>(cols));
  k.portable.dequantize_row(unit.data(), ints.data(), cols);
  float acc = 0.0f;
  *scale = 0.0;
  for (int64_t b = 0; b < blocks; ++b) {
    int32_t total = 0;
    for (int i = 0; i < 32; ++i) total += static_cast<int32_t>(ints[32 * b + i]) * xq[b].qs[i];
    uint16_t half;
    std::memcpy(&half, row + b * k.block_bytes, 2);
    const float product = fp16_to_f32(half) * xq[b].d;
    acc = std::fma(static_cast<float>(total), product, acc);
    *scale += std::fabs(static_cast<double>(total) * product);
  }
  return acc;
}

TEST(QuantVnniVariant, IsAvx2WithItsOwnQ8KernelsWhereWritten) {
#if !(defined(__x86_64__) || defined(__i386__))
  GTEST_SKIP() << "not an x86 build: every variant is the portable one";
#endif
  for (const CpuKernels* k : all_cpu_kernels()) {
    EXPECT_EQ(k->avx512_vnni.dequantize_row, k->avx2.dequantize_row) << k->name;
    EXPECT_EQ(k->avx512_vnni.quantize_row, k->avx2.quantize_row) << k->name;
    EXPECT_EQ(k->avx512_vnni.get_rows, k->avx2.get_rows) << k->name;
    EXPECT_EQ(k->avx512_vnni.matmul, k->avx2.matmul) << k->name;
    if (kVnniTypes.count(k->name) == 1) {
      EXPECT_NE(k->avx512_vnni.matvec_q8, nullptr) << k->name;
      EXPECT_NE(k->avx512_vnni.matvec_q8, k->avx2.matvec_q8) << k->name;
    } else {
      EXPECT_EQ(k->avx512_vnni.matvec_q8, k->avx2.matvec_q8) << k->name;
    }
    // What the plugins hand the host on this CPU.
    const orcd_quant_cpu_ops* want = cpu_has_avx512_vnni() ? &k->avx512_vnni
                                     : cpu_has_avx2_fma()  ? &k->avx2
                                                           : &k->portable;
    EXPECT_EQ(&best_cpu_ops(*k), want) << k->name;
  }
}

class QuantVnniVsAvx2 : public testing::TestWithParam<const CpuKernels*> {
 protected:
  void SetUp() override {
    if (!cpu_has_avx512_vnni()) GTEST_SKIP() << missing_isa_reason(Isa::kAvx512Vnni);
    if (kVnniTypes.count(GetParam()->name) == 0) {
      GTEST_SKIP() << GetParam()->name << " reuses the AVX2 q8 kernel";
    }
  }

  // Both variants' y for rows x cols blocks q, every row compared: bit for
  // bit, or for the row-lane types, VNNI bit for bit with the reference and
  // AVX2 within the float rounding of n_blocks additions of the same terms
  // (2 n eps of their absolute sum: each addition rounds once, each scaling
  // once).
  void ExpectPinned(const std::vector<uint8_t>& q, int64_t rows, int64_t cols,
                    const std::vector<float>& x, const std::string& what) const {
    const CpuKernels& k = *GetParam();
    std::vector<float> y_avx2(static_cast<size_t>(rows)), y_vnni(y_avx2.size());
    k.avx2.matvec_q8(q.data(), rows, cols, x.data(), y_avx2.data());
    k.avx512_vnni.matvec_q8(q.data(), rows, cols, x.data(), y_vnni.data());
    const bool row_lanes = RowLanes(k.name) && cols <= 16384;  // longer rows: f32 (both)
    const std::vector<orcd_q8_x32> xq = row_lanes ? round_to_q8_x32(x) : std::vector<orcd_q8_x32>{};
    const int64_t row_bytes = cols / k.block_elems * k.block_bytes;
    for (int64_t r = 0; r < rows; ++r) {
      if (!row_lanes) {
        ASSERT_TRUE(same_bits(y_vnni[r], y_avx2[r]))
            << k.name << " " << what << " row " << r << ": " << y_vnni[r] << " vs " << y_avx2[r];
        continue;
      }
      double scale = 0.0;
      const float want = RowLaneReference(k, q.data() + r * row_bytes, cols, xq, &scale);
      ASSERT_TRUE(same_bits(y_vnni[r], want))
          << k.name << " " << what << " row " << r << ": " << y_vnni[r] << " vs " << want;
      ASSERT_LE(std::fabs(static_cast<double>(y_avx2[r]) - want),
                2.0 * static_cast<double>(cols / 32) * 0x1p-24 * scale)
          << k.name << " " << what << " row " << r << ": AVX2 " << y_avx2[r];
    }
  }
};

// Activations that stress different parts of the kernels: ordinary values,
// all-zero blocks (d = 0), every value at +-amax (all q = +-127: the largest
// int16 pair sums), and one outlier per 256 (nearly every q 0).
std::vector<std::vector<float>> activation_cases(int64_t cols, uint64_t seed) {
  std::vector<std::vector<float>> out;
  out.push_back(random_normal(cols, seed));
  std::vector<float> zeros = random_normal(cols, seed + 1);
  std::fill(zeros.begin(), zeros.begin() + std::min<int64_t>(cols, 256), 0.0f);
  out.push_back(zeros);
  std::vector<float> extreme = random_normal(cols, seed + 2);
  for (float& v : extreme) v = v < 0 ? -3.0f : 3.0f;
  out.push_back(extreme);
  std::vector<float> outlier = random_normal(cols, seed + 3);
  for (int64_t i = 0; i < cols; i += 256) outlier[i] = 1000.0f;
  out.push_back(outlier);
  return out;
}

// Quantized random weights over odd row counts and the target models' widths
// (Qwen2.5-0.5B 896 -> 2816 here as a multiple of 256, 4864; Phi-3-mini 3072,
// 8192), up to the longest row the q8 path takes and one block past it (both
// variants then fall back to the same f32 kernel).
TEST_P(QuantVnniVsAvx2, PinnedOnOddShapes) {
  const CpuKernels& k = *GetParam();
  struct Shape {
    int64_t rows, cols;
  };
  std::vector<Shape> shapes = {{1, 256},  {3, 2816},  {17, 3072}, {5, 4864},
                               {7, 8192}, {2, 16384}, {2, 16640}};
  if (k.block_elems == 32) {
    // Odd block counts (the VNNI kernels take blocks two at a time and the
    // last one alone, q8_pairs.h) and row counts around the 16-row tiles.
    shapes.push_back({5, 32 * 7});
    shapes.push_back({3, 32 * 29});
    shapes.push_back({4, 32 * 95});
    shapes.push_back({16, 32 * 28});
    shapes.push_back({33, 32 * 3});
    shapes.push_back({47, 32 * 152});
  }
  uint64_t seed = 500;
  for (const Shape& s : shapes) {
    const std::vector<float> src = random_weights(s.rows, s.cols, seed++);
    const int64_t row_bytes = s.cols / k.block_elems * k.block_bytes;
    std::vector<uint8_t> q(static_cast<size_t>(s.rows * row_bytes));
    for (int64_t r = 0; r < s.rows; ++r)
      k.portable.quantize_row(src.data() + r * s.cols, q.data() + r * row_bytes, s.cols);
    int case_index = 0;
    for (const std::vector<float>& x : activation_cases(s.cols, seed++)) {
      ExpectPinned(q, s.rows, s.cols, x,
                   std::to_string(s.rows) + "x" + std::to_string(s.cols) + " x case " +
                       std::to_string(case_index++));
    }
  }
}

// Random block bytes (finite fp16 scales): every nibble, high-bit and scale
// pattern, including the extremes no quantizer output reaches together.
TEST_P(QuantVnniVsAvx2, PinnedOnRandomBlockBytes) {
  const CpuKernels& k = *GetParam();
  const int64_t rows = 64, cols = 2048;
  const int64_t blocks = rows * cols / k.block_elems;
  std::mt19937_64 rng(77);
  std::vector<uint8_t> q(static_cast<size_t>(blocks * k.block_bytes));
  for (uint8_t& byte : q) byte = static_cast<uint8_t>(rng());
  for (int64_t b = 0; b < blocks; ++b) {
    for (int offset : kVnniTypes.at(k.name)) {
      // Sign random, exponent 2^-7 .. 2^0: finite, and the products stay normal.
      const uint16_t half = static_cast<uint16_t>((rng() & 0x9FFF) | 0x2000);
      std::memcpy(q.data() + b * k.block_bytes + offset, &half, 2);
    }
  }
  int case_index = 0;
  for (const std::vector<float>& x : activation_cases(cols, 900)) {
    ExpectPinned(q, rows, cols, x, "random bytes, x case " + std::to_string(case_index++));
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, QuantVnniVsAvx2, testing::ValuesIn(all_cpu_kernels()),
                         type_name);

}  // namespace
}  // namespace orcd::quant::test
