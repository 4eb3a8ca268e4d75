// matmul_q8 (quant ABI 1.4, the prefill path with 8-bit activations) and
// matmul_q8_decode (1.9, several generated tokens): for every variant that has
// them, each token's outputs are matvec_q8's bits on that token alone, over shapes that leave
// partial tiles on both sides (rows not a multiple of the row tile, token counts not a multiple of
// the token tile, several stack chunks of tokens) and for the 32-element types odd multiples of 32
// columns.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "common/cpu_kernel_set.h"
#include "cpu_variant.h"
#include "quant_test_support.h"

namespace orcd::quant::test {
namespace {

class QuantQ8Matmul : public testing::TestWithParam<TypeAndIsa> {
 protected:
  void SetUp() override {
    ops_ = ops_for(*std::get<0>(GetParam()), std::get<1>(GetParam()));
    if (ops_ == nullptr) GTEST_SKIP() << missing_isa_reason(std::get<1>(GetParam()));
  }

  using MatmulQ8Fn = decltype(orcd_quant_cpu_ops::matmul_q8);
  struct Kernel {
    const char* name;
    MatmulQ8Fn fn;
  };
  // The variant's batched 8-bit kernels that exist.
  std::vector<Kernel> BatchedKernels() const {
    std::vector<Kernel> out;
    if (ops_->matmul_q8 != nullptr) out.push_back({"matmul_q8", ops_->matmul_q8});
    if (ops_->matmul_q8_decode != nullptr)
      out.push_back({"matmul_q8_decode", ops_->matmul_q8_decode});
    return out;
  }

  // A batched kernel over n tokens against matvec_q8 token by token, bit for bit.
  void ExpectMatvecBits(const Kernel& kernel, int64_t rows, int64_t cols, int64_t n_tokens,
                        uint64_t seed) const {
    const CpuKernels& k = *std::get<0>(GetParam());
    const std::vector<float> src = random_weights(rows, cols, seed);
    const int64_t row_bytes = cols / k.block_elems * k.block_bytes;
    std::vector<uint8_t> q(static_cast<size_t>(rows * row_bytes));
    for (int64_t r = 0; r < rows; ++r)
      k.portable.quantize_row(src.data() + r * cols, q.data() + r * row_bytes, cols);
    std::vector<float> x = random_normal(n_tokens * cols, seed + 1);
    // One all-zero 256-span (d = 0) and one outlier, to reach the edge cases.
    for (int64_t i = 0; i < std::min<int64_t>(cols, 256); ++i) x[i] = 0.0f;
    x[(n_tokens - 1) * cols] = 1000.0f;
    const int64_t y_stride = rows + 3;  // not the row count: the stride is honoured
    std::vector<float> y(static_cast<size_t>(n_tokens * y_stride), -7.0f);
    kernel.fn(q.data(), rows, cols, x.data(), n_tokens, y.data(), y_stride);
    std::vector<float> want(static_cast<size_t>(rows));
    const std::string shape = std::string(kernel.name) + " " + std::to_string(rows) + "x" +
                              std::to_string(cols) + ", " + std::to_string(n_tokens) + " tokens";
    for (int64_t t = 0; t < n_tokens; ++t) {
      ops_->matvec_q8(q.data(), rows, cols, x.data() + t * cols, want.data());
      for (int64_t r = 0; r < rows; ++r) {
        const float got = y[t * y_stride + r];
        ASSERT_TRUE(same_bits(got, want[r])) << k.name << " " << shape << ": token " << t << " row "
                                             << r << ": " << got << " vs " << want[r];
      }
      for (int64_t r = rows; r < y_stride; ++r) ASSERT_EQ(y[t * y_stride + r], -7.0f) << shape;
    }
  }

  const orcd_quant_cpu_ops* ops_ = nullptr;
};

// The K-quants of the target files (Phi-3-mini's Q4_K_M: Q4_K, Q6_K) on
// AVX2 and AVX-512 VNNI; Q5_0 and Q8_0 (Qwen2.5's Q4_K_M mix) on VNNI only,
// two blocks per zmm (on AVX2 the f32 prefill GEMM is faster for 32-element
// blocks, q8_matmul.h). The generated tokens' kernel: all four on both.
const std::set<std::string> kTypesWithMatmulQ8 = {"Q4_K", "Q6_K"};
const std::set<std::string> kTypesWithMatmulQ8OnVnni = {"Q4_K", "Q6_K", "Q5_0", "Q8_0"};
const std::set<std::string> kTypesWithMatmulQ8Decode = {"Q4_K", "Q6_K", "Q5_0", "Q8_0"};

TEST_P(QuantQ8Matmul, OfferedByTheKQuantsAndNeverByPortableCode) {
  const CpuKernels& k = *std::get<0>(GetParam());
  const Isa isa = std::get<1>(GetParam());
  const std::set<std::string>& offering =
      isa == Isa::kAvx512Vnni ? kTypesWithMatmulQ8OnVnni : kTypesWithMatmulQ8;
  EXPECT_EQ(ops_->matmul_q8 != nullptr, isa != Isa::kPortable && offering.count(k.name) == 1)
      << k.name;
  if (ops_->matmul_q8 != nullptr) {
    EXPECT_NE(ops_->matvec_q8, nullptr) << k.name;
  }
  EXPECT_EQ(k.portable.matmul_q8, nullptr) << k.name;
  EXPECT_EQ(ops_->matmul_q8_decode != nullptr,
            isa != Isa::kPortable && kTypesWithMatmulQ8Decode.count(k.name) == 1)
      << k.name;
  // VNNI's prompt kernel serves generated tokens too.
  if (isa == Isa::kAvx512Vnni && ops_->matmul_q8 != nullptr) {
    EXPECT_EQ(ops_->matmul_q8_decode, ops_->matmul_q8) << k.name;
  }
}

TEST_P(QuantQ8Matmul, EachTokenIsMatvecQ8Bitwise) {
  const CpuKernels& k = *std::get<0>(GetParam());
  if (BatchedKernels().empty()) GTEST_SKIP() << k.name << " has no batched q8 path";
  struct Shape {
    int64_t rows, cols, n_tokens;
  };
  // 8192 columns: spans of 12, 12 and 8 blocks; 61 and 29 tokens: three
  // 256 KiB chunks each; 200 one-block tokens: past the 192-token chunk cap.
  std::vector<Shape> shapes = {
      {1, 256, 4},   {5, 512, 7},   {7, 768, 37},  {13, 3072, 9},  {6, 1024, 16},
      {3, 256, 5},   {9, 8192, 21}, {4, 8192, 61}, {2, 16384, 11}, {2, 16384, 29},
      {5, 256, 200}, {3, 16640, 6},                 // past q8::kMaxCols: the f32 fallback
      {7, 512, 2},   {4, 1024, 8},  {3, 768, 17}};  // the decode tiles: 8 tokens, one more
  if (k.block_elems == 32) {                        // for a 32-element type that offers it
    shapes.push_back({11, 32 * 7, 13});
    shapes.push_back({5, 32 * 29, 33});
    shapes.push_back({6, 32 * 95, 4});
    // The VNNI kernels' 16-row tiles (q8_row_lanes.h): a partial last tile,
    // several 32-block chunks of a row, and several token chunks.
    shapes.push_back({17, 32 * 28, 9});
    shapes.push_back({33, 32 * 95, 40});
    shapes.push_back({48, 32 * 3, 8});
  }
  for (const Kernel& kernel : BatchedKernels()) {
    uint64_t seed = 1200;
    for (const Shape& s : shapes) {
      ExpectMatvecBits(kernel, s.rows, s.cols, s.n_tokens, seed);
      seed += 2;
    }
  }
}

// The decode dots of Q4_K and Q6_K (matvec_q8) are written apart from the
// unpacked blocks matmul_q8 tiles: pin them on raw random block bytes, which
// reach every 4/6-bit value, scale and min (scale -128 included), not only
// what quantize_row emits. The fp16 factors are set to finite values.
TEST_P(QuantQ8Matmul, EachTokenIsMatvecQ8BitwiseOnRawBlockBytes) {
  const CpuKernels& k = *std::get<0>(GetParam());
  if (BatchedKernels().empty()) GTEST_SKIP() << k.name << " has no batched q8 path";
  // Byte offsets of the fp16 factors in a block (block_codec.h layouts).
  std::vector<int> half_offsets;
  if (k.name == std::string("Q4_K")) half_offsets = {0, 2};  // d, dmin
  if (k.name == std::string("Q6_K")) half_offsets = {208};   // d after ql, qh, scales
  if (k.name == std::string("Q5_0") || k.name == std::string("Q8_0")) half_offsets = {0};  // d
  ASSERT_FALSE(half_offsets.empty()) << k.name << ": add its fp16 offsets";
  const int64_t rows = 11, cols = 3072, n_tokens = 11;  // a tile of 8 tokens and a partial one
  const int64_t n_blocks = rows * cols / k.block_elems;
  std::vector<uint8_t> q(static_cast<size_t>(n_blocks * k.block_bytes));
  uint64_t state = 0x9E3779B97F4A7C15u;
  for (uint8_t& byte : q) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    byte = static_cast<uint8_t>(state >> 56);
  }
  const uint16_t halves[] = {0x3C00, 0x2E66, 0xB4CD, 0x0001, 0x1400, 0x7BFF};  // 1, 0.1, -0.3, ...
  for (int64_t b = 0; b < n_blocks; ++b) {
    for (size_t i = 0; i < half_offsets.size(); ++i) {
      const uint16_t h = halves[(b + static_cast<int64_t>(i)) % 6];
      std::memcpy(q.data() + b * k.block_bytes + half_offsets[i], &h, 2);
    }
  }
  std::vector<float> x = random_normal(n_tokens * cols, 77);
  x[5] = 300.0f;  // one outlier: most of that span rounds to 0
  const int64_t y_stride = rows;
  for (const Kernel& kernel : BatchedKernels()) {
    std::vector<float> y(static_cast<size_t>(n_tokens * y_stride));
    kernel.fn(q.data(), rows, cols, x.data(), n_tokens, y.data(), y_stride);
    std::vector<float> want(static_cast<size_t>(rows));
    for (int64_t t = 0; t < n_tokens; ++t) {
      ops_->matvec_q8(q.data(), rows, cols, x.data() + t * cols, want.data());
      for (int64_t r = 0; r < rows; ++r) {
        ASSERT_TRUE(same_bits(y[t * y_stride + r], want[r]))
            << k.name << " " << kernel.name << ": token " << t << " row " << r << ": "
            << y[t * y_stride + r] << " vs " << want[r];
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypesAndVariants, QuantQ8Matmul,
                         testing::ValuesIn(all_types_and_isas()), type_and_isa_name);

}  // namespace
}  // namespace orcd::quant::test
