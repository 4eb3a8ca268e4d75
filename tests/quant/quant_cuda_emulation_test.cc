// The CUDA kernels, run on the host by cuda_emulator.h, against the CPU
// kernels: catches indexing, tiling and reduction mistakes without a GPU
// (tests/gpu runs the real thing where a device exists).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "common/cpu_kernel_set.h"
#include "cuda_emulator.h"
#include "mxfp4/mxfp4.h"
#include "q4/q4_0.h"
#include "q4/q4_1.h"
#include "q4/q4_k.h"
#include "q4/q5_0.h"
#include "q4/q5_1.h"
#include "q4/q5_k.h"
#include "q4/q6_k.h"
#include "q4/q8_0.h"
#include "quant_test_support.h"

namespace orcd::quant::test {
namespace {

namespace k = ::orcd::quant::cuda;

template <class T>
class QuantCudaEmulation : public testing::Test {
 protected:
  // 37 rows: a full and a partial 32-row tile, a partial 8-row matvec CTA with
  // a warp holding one row and one holding none;
  // cols: 37 blocks of 32 (a partial 128-column tile) or 3 super-blocks.
  static constexpr int64_t kRows = 37;
  static constexpr int64_t kCols = T::kElems == 32 ? 37 * 32 : 3 * 256;
  static constexpr int64_t kRowBlocks = kCols / T::kElems;

  // The 8-bit matvec family's shapes: blocks per row at which q8_split gives
  // a few rows (kRows, or experts of 9) 1, 2 and 4 warps per row. A warp step
  // is kStep blocks; each shape ends on a partial step, and at split 2 the
  // last CTA of 37 rows has two warps past the rows that must still reach
  // the barrier. kManyRows rows take one warp per row at any width.
  static constexpr int64_t kStep = k::kWarp / T::kQ8Parts;
  struct Q8Shape {
    int64_t row_blocks;
    int split;
  };
  static constexpr Q8Shape kQ8Shapes[] = {
      {2 * kStep - 1, 1}, {2 * kStep + 1, 2}, {4 * kStep + 3, 4}};
  static constexpr int64_t kManyRows = k::kQ8SplitBelowWarps;

  struct Matrix {
    int64_t rows, row_blocks, cols;
    std::vector<typename T::Block> q;
    std::vector<float> deq;
  };

  void SetUp() override {
    cpu_ = find_cpu_kernels(T::kType);
    ASSERT_NE(cpu_, nullptr);
    Matrix m = matrix(kRows, kRowBlocks, 31);
    q_ = std::move(m.q);
    deq_ = std::move(m.deq);
  }

  // rows x row_blocks blocks of random weights, quantized, and their values.
  // Past kRows rows the first kRows repeat (quantizing is what would take the
  // time; a row mixed up with one a multiple of 37 rows away goes unseen).
  Matrix matrix(int64_t rows, int64_t row_blocks, uint64_t seed) const {
    Matrix m{rows, row_blocks, row_blocks * T::kElems, {}, {}};
    const int64_t distinct = std::min(rows, kRows);
    const std::vector<float> src = random_weights(distinct, m.cols, seed);
    m.q.resize(rows * row_blocks);
    cpu_->portable.quantize_row(src.data(), m.q.data(), distinct * m.cols);
    for (int64_t r = distinct; r < rows; ++r)
      std::copy_n(m.q.begin() + (r % distinct) * row_blocks, row_blocks,
                  m.q.begin() + r * row_blocks);
    m.deq.resize(rows * m.cols);
    cpu_->portable.dequantize_row(m.q.data(), m.deq.data(), rows * m.cols);
    return m;
  }

  // Same bound and reasoning as tests/gpu: f32 sums in different orders.
  void expect_close(const std::vector<float>& got, const std::vector<float>& expect,
                    const std::vector<double>& scale, const char* what) {
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], expect[i], 1e-5 * scale[i]) << T::kName << " " << what << " output " << i;
    }
  }

  // 8-bit activations: every output within f32 summation error of float64
  // over the dequantized weights (deq: rows x cols) and the rounded x (the
  // integer dot products are exact; only the per-part scalings round).
  static void expect_q8_close(const float* got, const float* deq, int64_t rows, int64_t cols,
                              const std::vector<float>& x, const std::string& what) {
    const std::vector<float> w(deq, deq + rows * cols);
    const std::vector<double> expect = reference_matmul(w, rows, cols, x, 1);
    const std::vector<double> scale = abs_product_sums(w, rows, cols, x, 1);
    for (int64_t r = 0; r < rows; ++r) {
      ASSERT_NEAR(got[r], expect[r], 1e-5 * scale[r]) << T::kName << " " << what << " row " << r;
    }
  }

  static void expect_same_bits(const float* got, const float* expect, int64_t n,
                               const std::string& what) {
    for (int64_t r = 0; r < n; ++r) {
      ASSERT_TRUE(same_bits(got[r], expect[r]))
          << T::kName << " " << what << " row " << r << ": " << got[r] << " vs " << expect[r];
    }
  }

  // matvec_q8 as the plugin launches it (the split of the shape).
  static std::vector<float> matvec_q8(const typename T::Block* w, int64_t rows, int64_t cols,
                                      const orcd_q8_x32* xq) {
    std::vector<float> y(rows, NAN);
    EXPECT_EQ(k::launch_matvec_q8<T>(w, rows, cols, xq, y.data(), nullptr), cudaSuccess);
    return y;
  }

  static std::string shape_name(const Q8Shape& s) {
    return std::to_string(s.row_blocks) + " blocks (split " + std::to_string(s.split) + ")";
  }

  const CpuKernels* cpu_ = nullptr;
  std::vector<typename T::Block> q_;
  std::vector<float> deq_;
};

using ServedTypes = testing::Types<Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K, MXFP4>;
class TypeNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return T::kName;
  }
};
TYPED_TEST_SUITE(QuantCudaEmulation, ServedTypes, TypeNames);

TYPED_TEST(QuantCudaEmulation, GetRows) {
  using T = TypeParam;
  const std::vector<int32_t> ids = {36, 0, 5, 5, 17};
  std::vector<float> got(ids.size() * this->kCols, NAN);
  emulator::launch({static_cast<unsigned>(ids.size())}, {k::kGetRowsThreads}, [&] {
    k::get_rows_kernel<T, float>(this->q_.data(), this->kRowBlocks, ids.data(), got.data(),
                                 this->kCols);
  });
  for (size_t i = 0; i < ids.size(); ++i) {
    for (int64_t c = 0; c < this->kCols; ++c) {
      ASSERT_TRUE(same_bits(got[i * this->kCols + c], this->deq_[ids[i] * this->kCols + c]))
          << T::kName << " id " << ids[i] << " column " << c;
    }
  }
}

// ABI 1.8 get_rows_f16 (the tensor-core prefill's operand in one pass): each
// value is get_rows' float rounded to f16, bit for bit what the host's
// to_half of get_rows gave before, so prefill logits do not move.
TYPED_TEST(QuantCudaEmulation, GetRowsF16IsGetRowsRoundedToHalf) {
  using T = TypeParam;
  const std::vector<int32_t> ids = {3, 36, 0, 0, 21};
  std::vector<uint16_t> got(ids.size() * this->kCols, 0x7E00);  // NaN: unwritten shows
  ASSERT_EQ(k::launch_get_rows<T>(this->q_.data(), this->kCols, ids.data(),
                                  static_cast<int64_t>(ids.size()), got.data(), nullptr),
            cudaSuccess);
  for (size_t i = 0; i < ids.size(); ++i) {
    for (int64_t c = 0; c < this->kCols; ++c) {
      ASSERT_EQ(got[i * this->kCols + c], f32_to_fp16(this->deq_[ids[i] * this->kCols + c]))
          << T::kName << " id " << ids[i] << " column " << c;
    }
  }
}

TYPED_TEST(QuantCudaEmulation, Matvec) {
  using T = TypeParam;
  const std::vector<float> x = random_normal(this->kCols, 32);
  std::vector<float> expect(this->kRows);
  this->cpu_->portable.matmul(this->q_.data(), this->kRows, this->kCols, x.data(), 1, expect.data(),
                              this->kRows);
  const std::vector<double> scale = abs_product_sums(this->deq_, this->kRows, this->kCols, x, 1);
  const unsigned ctas = (this->kRows + k::kMatvecRowsPerCta - 1) / k::kMatvecRowsPerCta;
  std::vector<float> aligned(this->kRows, NAN), unaligned(this->kRows, NAN);
  emulator::launch({ctas}, {k::kMatvecThreads}, [&] {
    k::matvec_kernel<T, true>(this->q_.data(), this->kRows, this->kRowBlocks, x.data(),
                              aligned.data());
  });
  emulator::launch({ctas}, {k::kMatvecThreads}, [&] {
    k::matvec_kernel<T, false>(this->q_.data(), this->kRows, this->kRowBlocks, x.data(),
                               unaligned.data());
  });
  this->expect_close(aligned, expect, scale, "matvec (vector loads)");
  this->expect_close(unaligned, expect, scale, "matvec (scalar loads)");
}

// The split is the shape's alone: many warps per row for few rows with
// enough blocks for each warp of a row, one for many rows or short rows.
TYPED_TEST(QuantCudaEmulation, Q8SplitDependsOnTheShape) {
  using T = TypeParam;
  constexpr int64_t kStep = TestFixture::kStep;
  for (const auto& shape : TestFixture::kQ8Shapes) {
    EXPECT_EQ(k::q8_split<T>(this->kRows, shape.row_blocks), shape.split) << T::kName;
    EXPECT_EQ(k::q8_split<T>(9, shape.row_blocks), shape.split) << T::kName;
  }
  EXPECT_EQ(k::q8_split<T>(896, 4 * kStep), 4) << T::kName;
  EXPECT_EQ(k::q8_split<T>(896, 4 * kStep - 1), 2) << T::kName;
  EXPECT_EQ(k::q8_split<T>(896, 2 * kStep - 1), 1) << T::kName;
  EXPECT_EQ(k::q8_split<T>(1023, 1000), 4) << T::kName;
  EXPECT_EQ(k::q8_split<T>(1024, 1000), 2) << T::kName;
  EXPECT_EQ(k::q8_split<T>(2047, 1000), 2) << T::kName;
  EXPECT_EQ(k::q8_split<T>(TestFixture::kManyRows, 1000), 1) << T::kName;
  EXPECT_EQ(k::q8_ctas(37, 1), 10);
  EXPECT_EQ(k::q8_ctas(37, 2), 19);
  EXPECT_EQ(k::q8_ctas(37, 4), 37);
}

// matvec_q8 (ABI 1.3) through the launcher at each shape's split (kManyRows
// rows: split 1 by the rows alone), and the kernel at every split on the
// small shapes: all within matvec_q8's bound; and the activation rounding
// itself stays small next to the f32 path's result.
TYPED_TEST(QuantCudaEmulation, MatvecQ8) {
  using T = TypeParam;
  std::vector<std::pair<int64_t, typename TestFixture::Q8Shape>> shapes;
  for (const auto& shape : TestFixture::kQ8Shapes) shapes.emplace_back(this->kRows, shape);
  shapes.push_back({TestFixture::kManyRows, {TestFixture::kQ8Shapes[1].row_blocks, 1}});
  for (const auto& [rows, shape] : shapes) {
    ASSERT_EQ(k::q8_split<T>(rows, shape.row_blocks), shape.split) << T::kName;
    const auto m = this->matrix(rows, shape.row_blocks, 40 + shape.split);
    const std::vector<float> x = random_normal(m.cols, 34);
    const std::vector<orcd_q8_x32> xq = round_to_q8_x32(x);
    const std::vector<float> rounded = q8_x32_values(xq);
    const std::string what = std::to_string(rows) + " rows of " + this->shape_name(shape);
    const std::vector<float> got = this->matvec_q8(m.q.data(), rows, m.cols, xq.data());
    this->expect_q8_close(got.data(), m.deq.data(), rows, m.cols, rounded, what);
    // The kernel at every split (on kRows rows: emulation time).
    for (int split : rows == this->kRows ? std::vector<int>{1, 2, 4} : std::vector<int>{}) {
      std::vector<float> y(rows, NAN);
      emulator::launch({static_cast<unsigned>(k::q8_ctas(rows, split))}, {k::kQ8Threads}, [&] {
        k::matvec_q8_kernel<T>(m.q.data(), rows, shape.row_blocks, xq.data(), y.data(), split);
      });
      this->expect_q8_close(y.data(), m.deq.data(), rows, m.cols, rounded,
                            what + " at split " + std::to_string(split));
      if (split == shape.split) this->expect_same_bits(y.data(), got.data(), rows, what);
    }
    std::vector<float> f32(rows);
    this->cpu_->portable.matmul(m.q.data(), rows, m.cols, x.data(), 1, f32.data(), rows);
    const std::vector<double> f32_scale = abs_product_sums(m.deq, rows, m.cols, x, 1);
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_NEAR(got[r], f32[r], 0.02 * f32_scale[r]) << T::kName << " " << what << " row " << r;
    }
  }
}

// Experts picked by device ids, two x rows (ids_per_x = 2), strided y: each
// pick is matvec_q8 of its expert, bit for bit.
TYPED_TEST(QuantCudaEmulation, MatvecIdsQ8) {
  using T = TypeParam;
  constexpr int64_t kExpertRows = 9;  // 37 rows hold four experts of 9
  const std::vector<int32_t> ids = {3, 0, 2, 3};
  for (const auto& shape : TestFixture::kQ8Shapes) {
    ASSERT_EQ(k::q8_split<T>(kExpertRows, shape.row_blocks), shape.split) << T::kName;
    const auto m = this->matrix(this->kRows, shape.row_blocks, 50 + shape.split);
    const int64_t expert_blocks = kExpertRows * shape.row_blocks;
    const int64_t runs = m.cols / 32;
    const std::vector<orcd_q8_x32> xq = round_to_q8_x32(random_normal(2 * m.cols, 35));
    const std::vector<float> rounded = q8_x32_values(xq);
    const int64_t y_stride = kExpertRows + 3;
    std::vector<float> got(ids.size() * y_stride, -777.0f);
    ASSERT_EQ(k::launch_matvec_ids_q8<T>(m.q.data(), kExpertRows, m.cols,
                                         expert_blocks * sizeof(typename T::Block), ids.data(),
                                         static_cast<int64_t>(ids.size()), 2, xq.data(), runs,
                                         got.data(), y_stride, nullptr),
              cudaSuccess);
    for (size_t i = 0; i < ids.size(); ++i) {
      const std::string what = this->shape_name(shape) + " pick " + std::to_string(i);
      const float* y = got.data() + i * y_stride;
      const int64_t x = static_cast<int64_t>(i / 2);
      const std::vector<float> xi(rounded.begin() + x * m.cols, rounded.begin() + (x + 1) * m.cols);
      this->expect_q8_close(y, m.deq.data() + ids[i] * kExpertRows * m.cols, kExpertRows, m.cols,
                            xi, what);
      const std::vector<float> one = this->matvec_q8(m.q.data() + ids[i] * expert_blocks,
                                                     kExpertRows, m.cols, xq.data() + x * runs);
      this->expect_same_bits(y, one.data(), kExpertRows, what);
      for (int64_t r = kExpertRows; r < y_stride; ++r)
        ASSERT_EQ(y[r], -777.0f) << "padding of pick " << i << " overwritten";
    }
  }
}

// One weight times several x rows (ABI 1.7 matvec_xs_q8: several sequences'
// decode tokens in one step): row t of y has matvec_q8's bits for x row t,
// whatever the number of rows (11: a full pass of 8 and a partial one),
// strided x and y, nothing written past the rows.
TYPED_TEST(QuantCudaEmulation, MatvecXsQ8GivesMatvecQ8sBitsForEachRow) {
  using T = TypeParam;
  constexpr int64_t kXs = 11;
  for (const auto& shape : TestFixture::kQ8Shapes) {
    const auto m = this->matrix(this->kRows, shape.row_blocks, 60 + shape.split);
    const int64_t runs = m.cols / 32;
    const int64_t xq_stride = runs + 2;
    const std::vector<orcd_q8_x32> rounded = round_to_q8_x32(random_normal(kXs * m.cols, 39));
    std::vector<orcd_q8_x32> xq(kXs * xq_stride);
    for (int64_t t = 0; t < kXs; ++t)
      std::copy_n(rounded.begin() + t * runs, runs, xq.begin() + t * xq_stride);
    const int64_t y_stride = this->kRows + 3;
    std::vector<float> got(kXs * y_stride, -777.0f);
    ASSERT_EQ(k::launch_matvec_xs_q8<T>(m.q.data(), this->kRows, m.cols, xq.data(), xq_stride, kXs,
                                        got.data(), y_stride, nullptr),
              cudaSuccess);
    for (int64_t t = 0; t < kXs; ++t) {
      const std::string what = this->shape_name(shape) + " x row " + std::to_string(t);
      const float* y = got.data() + t * y_stride;
      const std::vector<float> one =
          this->matvec_q8(m.q.data(), this->kRows, m.cols, xq.data() + t * xq_stride);
      this->expect_same_bits(y, one.data(), this->kRows, what);
      for (int64_t r = this->kRows; r < y_stride; ++r)
        ASSERT_EQ(y[r], -777.0f) << "padding of x row " << t << " overwritten";
    }
  }
}

// Gate and up in one launch (ABI 1.5 matvec_glu_q8): each output is the
// activation of matvec_q8's / matvec_ids_q8's own dots (plus biases), bit
// for bit, so the fused decode step keeps the unfused one's logits.
TYPED_TEST(QuantCudaEmulation, MatvecGluQ8GivesTheSeparateDotsActivatedBitForBit) {
  using T = TypeParam;
  for (const auto& shape : TestFixture::kQ8Shapes) {
    const auto m = this->matrix(this->kRows, shape.row_blocks, 70 + shape.split);
    const int64_t runs = m.cols / 32;
    const std::vector<orcd_q8_x32> xq = round_to_q8_x32(random_normal(2 * m.cols, 36));
    // Dense: one expert, gate rows 0..17, up rows 18..35 of the test matrix.
    {
      constexpr int64_t kRows = 18;
      ASSERT_EQ(k::q8_split<T>(kRows, shape.row_blocks), shape.split) << T::kName;
      const auto* gate = m.q.data();
      const auto* up = gate + kRows * shape.row_blocks;
      const std::vector<float> g = this->matvec_q8(gate, kRows, m.cols, xq.data());
      const std::vector<float> u = this->matvec_q8(up, kRows, m.cols, xq.data());
      std::vector<float> got(kRows + 1, -777.0f), expect(kRows);
      const orcd_glu_params silu{ORCD_MOE_ACT_SWIGLU, 0.0f, 0.0f, nullptr, nullptr};
      ASSERT_EQ(k::launch_matvec_glu_q8<T>(
                    gate, up, kRows, m.cols, kRows * shape.row_blocks * sizeof(typename T::Block),
                    nullptr, 1, 1, xq.data(), runs, &silu, got.data(), kRows, nullptr),
                cudaSuccess);
      for (int64_t r = 0; r < kRows; ++r)
        expect[r] = GatedActivation(ORCD_MOE_ACT_SWIGLU, g[r], u[r], 0.0f, 0.0f);
      this->expect_same_bits(got.data(), expect.data(), kRows, this->shape_name(shape) + " dense");
      ASSERT_EQ(got[kRows], -777.0f) << "wrote past the rows";
    }
    // Experts of 9 rows (gate: rows 9e..; up: one row further), picked by
    // device ids over two x rows, per-expert biases, gpt-oss's activation.
    constexpr int64_t kExpertRows = 9;
    const int64_t expert_blocks = kExpertRows * shape.row_blocks;
    const int64_t expert_stride = expert_blocks * sizeof(typename T::Block);
    const auto* gate = m.q.data();
    const auto* up = gate + shape.row_blocks;
    const std::vector<int32_t> ids = {3, 0, 2, 3};
    const int64_t n_ids = static_cast<int64_t>(ids.size());
    const std::vector<float> gate_bias = random_normal(4 * kExpertRows, 37);
    const std::vector<float> up_bias = random_normal(4 * kExpertRows, 38);
    const int64_t y_stride = kExpertRows + 2;
    std::vector<float> g(ids.size() * y_stride), u(g.size()), got(g.size(), -777.0f);
    for (auto [w, y] : {std::pair{gate, g.data()}, std::pair{up, u.data()}}) {
      ASSERT_EQ(k::launch_matvec_ids_q8<T>(w, kExpertRows, m.cols, expert_stride, ids.data(), n_ids,
                                           2, xq.data(), runs, y, y_stride, nullptr),
                cudaSuccess);
    }
    const orcd_glu_params oai{ORCD_MOE_ACT_SWIGLU_OAI, 1.702f, 7.0f, gate_bias.data(),
                              up_bias.data()};
    ASSERT_EQ(
        k::launch_matvec_glu_q8<T>(gate, up, kExpertRows, m.cols, expert_stride, ids.data(), n_ids,
                                   2, xq.data(), runs, &oai, got.data(), y_stride, nullptr),
        cudaSuccess);
    for (size_t i = 0; i < ids.size(); ++i) {
      for (int64_t r = 0; r < y_stride; ++r) {
        const size_t at = i * y_stride + r;
        if (r >= kExpertRows) {
          ASSERT_EQ(got[at], -777.0f) << "padding of pick " << i << " overwritten";
          continue;
        }
        const int64_t b = ids[i] * kExpertRows + r;
        const float expect = GatedActivation(ORCD_MOE_ACT_SWIGLU_OAI, g[at] + gate_bias[b],
                                             u[at] + up_bias[b], oai.alpha, oai.limit);
        ASSERT_TRUE(same_bits(got[at], expect))
            << T::kName << " " << this->shape_name(shape) << " pick " << i << " row " << r << ": "
            << got[at] << " vs " << expect;
      }
    }
  }
}

// Up to four weights with one x in one launch (ABI 1.5 matvec_multi_q8):
// each part's rows are matvec_q8's bit for bit; parts of 13, 1, 19 and 4 rows
// leave partial CTAs at every boundary, and nothing past a part is written.
// Last, a part of kManyRows rows (split 1) beside small ones (split 2) in
// one launch: each part keeps its own split.
TYPED_TEST(QuantCudaEmulation, MatvecMultiQ8GivesEachPartsMatvecQ8BitForBit) {
  using T = TypeParam;
  std::vector<std::pair<std::vector<int64_t>, typename TestFixture::Q8Shape>> cases;
  for (const auto& shape : TestFixture::kQ8Shapes) cases.push_back({{13, 1, 19, 4}, shape});
  cases.push_back({{13, TestFixture::kManyRows, 1}, TestFixture::kQ8Shapes[1]});
  for (const auto& [rows, shape] : cases) {
    int64_t total = 0;
    for (int64_t r : rows) total += r;
    const auto m = this->matrix(total, shape.row_blocks, 80 + shape.split);
    const std::vector<orcd_q8_x32> xq = round_to_q8_x32(random_normal(m.cols, 39));
    std::vector<std::vector<float>> got;
    orcd_matvec_part parts[4];
    int64_t first = 0;
    for (size_t j = 0; j < rows.size(); ++j) {
      got.emplace_back(rows[j] + 1, -777.0f);
      parts[j] = {m.q.data() + first * shape.row_blocks, rows[j], got[j].data()};
      first += rows[j];
    }
    const int n_parts = static_cast<int>(rows.size());
    ASSERT_EQ(k::launch_matvec_multi_q8<T>(parts, n_parts, m.cols, xq.data(), nullptr),
              cudaSuccess);
    for (size_t j = 0; j < rows.size(); ++j) {
      const std::string what = this->shape_name(shape) + " part " + std::to_string(j) + " (split " +
                               std::to_string(k::q8_split<T>(rows[j], shape.row_blocks)) + ")";
      const auto* w = static_cast<const typename T::Block*>(parts[j].d_w);
      const std::vector<float> expect = this->matvec_q8(w, rows[j], m.cols, xq.data());
      this->expect_same_bits(got[j].data(), expect.data(), rows[j], what);
      ASSERT_EQ(got[j][rows[j]], -777.0f) << what << " wrote past its rows";
    }
    EXPECT_EQ(k::launch_matvec_multi_q8<T>(parts, 5, m.cols, xq.data(), nullptr),
              cudaErrorInvalidValue);
  }
}

// 5 tokens: one partial token tile; 40: two tiles. y_stride > rows.
TYPED_TEST(QuantCudaEmulation, TiledMatmul) {
  using T = TypeParam;
  for (int64_t n_tokens : {5, 40}) {
    const std::vector<float> x = random_normal(n_tokens * this->kCols, 33);
    const int64_t y_stride = this->kRows + 2;
    std::vector<float> expect(n_tokens * y_stride, -777.0f), got(expect.size(), -777.0f);
    this->cpu_->portable.matmul(this->q_.data(), this->kRows, this->kCols, x.data(), n_tokens,
                                expect.data(), y_stride);
    const EmulatedDim3 grid{
        static_cast<unsigned>((this->kRows + k::kTileRows - 1) / k::kTileRows),
        static_cast<unsigned>((n_tokens + k::kTileTokens - 1) / k::kTileTokens)};
    emulator::launch(grid, {k::kMatmulThreads}, [&] {
      k::matmul_kernel<T>(this->q_.data(), this->kRows, this->kCols, x.data(), n_tokens, got.data(),
                          y_stride);
    });
    const std::vector<double> sums =
        abs_product_sums(this->deq_, this->kRows, this->kCols, x, n_tokens);
    for (int64_t t = 0; t < n_tokens; ++t) {
      for (int64_t r = 0; r < y_stride; ++r) {
        const size_t i = t * y_stride + r;
        if (r >= this->kRows) {
          ASSERT_EQ(got[i], -777.0f) << "padding of token " << t << " overwritten";
        } else {
          ASSERT_NEAR(got[i], expect[i], 1e-5 * sums[t * this->kRows + r])
              << T::kName << " tokens " << n_tokens << " token " << t << " row " << r;
        }
      }
    }
  }
}

}  // namespace
}  // namespace orcd::quant::test
