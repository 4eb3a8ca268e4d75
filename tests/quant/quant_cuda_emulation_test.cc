// The CUDA kernels, run on the host by cuda_emulator.h, against the CPU
// kernels: catches indexing, tiling and reduction mistakes without a GPU
// (tests/gpu runs the real thing where a device exists).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
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

  void SetUp() override {
    cpu_ = find_cpu_kernels(T::kType);
    ASSERT_NE(cpu_, nullptr);
    const std::vector<float> src = random_weights(kRows, kCols, 31);
    q_.resize(kRows * kRowBlocks);
    cpu_->portable.quantize_row(src.data(), q_.data(), kRows * kCols);
    deq_.resize(src.size());
    cpu_->portable.dequantize_row(q_.data(), deq_.data(), kRows * kCols);
  }

  // Same bound and reasoning as tests/gpu: f32 sums in different orders.
  void expect_close(const std::vector<float>& got, const std::vector<float>& expect,
                    const std::vector<double>& scale, const char* what) {
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], expect[i], 1e-5 * scale[i]) << T::kName << " " << what << " output " << i;
    }
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
    k::get_rows_kernel<T>(this->q_.data(), this->kRowBlocks, ids.data(), got.data(), this->kCols);
  });
  for (size_t i = 0; i < ids.size(); ++i) {
    for (int64_t c = 0; c < this->kCols; ++c) {
      ASSERT_TRUE(same_bits(got[i * this->kCols + c], this->deq_[ids[i] * this->kCols + c]))
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

// 8-bit activations (ABI 1.3 matvec_q8): every output within f32 summation
// error of float64 over the dequantized weights and the rounded activations
// (the integer dot products are exact; only the per-part scalings round).
TYPED_TEST(QuantCudaEmulation, MatvecQ8) {
  using T = TypeParam;
  const std::vector<float> x = random_normal(this->kCols, 34);
  const std::vector<orcd_q8_x32> xq = round_to_q8_x32(x);
  const std::vector<float> rounded = q8_x32_values(xq);
  const std::vector<double> expect =
      reference_matmul(this->deq_, this->kRows, this->kCols, rounded, 1);
  const std::vector<double> scale =
      abs_product_sums(this->deq_, this->kRows, this->kCols, rounded, 1);
  std::vector<float> got(this->kRows, NAN);
  const unsigned ctas = (this->kRows + k::kQ8Warps - 1) / k::kQ8Warps;
  emulator::launch({ctas}, {k::kQ8Threads}, [&] {
    k::matvec_q8_kernel<T>(this->q_.data(), this->kRows, this->kRowBlocks, xq.data(), got.data());
  });
  for (int64_t r = 0; r < this->kRows; ++r) {
    ASSERT_NEAR(got[r], expect[r], 1e-5 * scale[r]) << T::kName << " row " << r;
  }
  // The activation rounding itself stays small next to the f32 path's result.
  std::vector<float> f32(this->kRows);
  this->cpu_->portable.matmul(this->q_.data(), this->kRows, this->kCols, x.data(), 1, f32.data(),
                              this->kRows);
  const std::vector<double> f32_scale =
      abs_product_sums(this->deq_, this->kRows, this->kCols, x, 1);
  for (int64_t r = 0; r < this->kRows; ++r) {
    EXPECT_NEAR(got[r], f32[r], 0.02 * f32_scale[r]) << T::kName << " row " << r;
  }
}

// Experts picked by device ids, two x rows (ids_per_x = 2), strided y.
TYPED_TEST(QuantCudaEmulation, MatvecIdsQ8) {
  using T = TypeParam;
  constexpr int64_t kExpertRows = 9;  // 37 rows hold four experts of 9
  const int64_t expert_blocks = kExpertRows * this->kRowBlocks;
  const std::vector<int32_t> ids = {3, 0, 2, 3};
  const std::vector<float> x = random_normal(2 * this->kCols, 35);
  const std::vector<orcd_q8_x32> xq = round_to_q8_x32(x);
  const std::vector<float> rounded = q8_x32_values(xq);
  const int64_t y_stride = kExpertRows + 3;
  std::vector<float> got(ids.size() * y_stride, -777.0f);
  const EmulatedDim3 grid{static_cast<unsigned>((kExpertRows + k::kQ8Warps - 1) / k::kQ8Warps),
                          static_cast<unsigned>(ids.size())};
  emulator::launch(grid, {k::kQ8Threads}, [&] {
    k::matvec_ids_q8_kernel<T>(this->q_.data(), kExpertRows, this->kRowBlocks, expert_blocks,
                               ids.data(), 2, xq.data(), this->kCols / 32, got.data(), y_stride);
  });
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::vector<float> expert(this->deq_.begin() + ids[i] * kExpertRows * this->kCols,
                                    this->deq_.begin() + (ids[i] + 1) * kExpertRows * this->kCols);
    const std::vector<float> xi(rounded.begin() + (i / 2) * this->kCols,
                                rounded.begin() + (i / 2 + 1) * this->kCols);
    const std::vector<double> expect = reference_matmul(expert, kExpertRows, this->kCols, xi, 1);
    const std::vector<double> scale = abs_product_sums(expert, kExpertRows, this->kCols, xi, 1);
    for (int64_t r = 0; r < y_stride; ++r) {
      if (r >= kExpertRows) {
        ASSERT_EQ(got[i * y_stride + r], -777.0f) << "padding of pick " << i << " overwritten";
      } else {
        ASSERT_NEAR(got[i * y_stride + r], expect[r], 1e-5 * scale[r])
            << T::kName << " pick " << i << " row " << r;
      }
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
  const int64_t runs = this->kCols / 32;
  const int64_t xq_stride = runs + 2;
  const std::vector<orcd_q8_x32> rounded = round_to_q8_x32(random_normal(kXs * this->kCols, 39));
  std::vector<orcd_q8_x32> xq(kXs * xq_stride);
  for (int64_t t = 0; t < kXs; ++t)
    std::copy_n(rounded.begin() + t * runs, runs, xq.begin() + t * xq_stride);
  const int64_t y_stride = this->kRows + 3;
  std::vector<float> got(kXs * y_stride, -777.0f);
  const EmulatedDim3 grid{static_cast<unsigned>((this->kRows + k::kQ8Warps - 1) / k::kQ8Warps),
                          static_cast<unsigned>((kXs + k::kXsPerPass - 1) / k::kXsPerPass)};
  emulator::launch(grid, {k::kQ8Threads}, [&] {
    k::matvec_xs_q8_kernel<T>(this->q_.data(), this->kRows, this->kRowBlocks, xq.data(), xq_stride,
                              kXs, got.data(), y_stride);
  });
  const unsigned ctas = (this->kRows + k::kQ8Warps - 1) / k::kQ8Warps;
  for (int64_t t = 0; t < kXs; ++t) {
    std::vector<float> one(this->kRows);
    emulator::launch({ctas}, {k::kQ8Threads}, [&] {
      k::matvec_q8_kernel<T>(this->q_.data(), this->kRows, this->kRowBlocks,
                             xq.data() + t * xq_stride, one.data());
    });
    for (int64_t r = 0; r < y_stride; ++r) {
      const float g = got[t * y_stride + r];
      if (r >= this->kRows) {
        ASSERT_EQ(g, -777.0f) << "padding of x row " << t << " overwritten";
      } else {
        ASSERT_EQ(std::memcmp(&g, &one[r], sizeof g), 0)
            << T::kName << " x row " << t << " row " << r << ": " << g << " vs " << one[r];
      }
    }
  }
}

// Gate and up in one launch (ABI 1.5 matvec_glu_q8): each output is the
// activation of matvec_q8's / matvec_ids_q8's own dots (plus biases), bit
// for bit, so the fused decode step keeps the unfused one's logits.
TYPED_TEST(QuantCudaEmulation, MatvecGluQ8GivesTheSeparateDotsActivatedBitForBit) {
  using T = TypeParam;
  const std::vector<orcd_q8_x32> xq = round_to_q8_x32(random_normal(2 * this->kCols, 36));
  const int64_t runs = this->kCols / 32;
  // Dense: one expert, gate rows 0..17, up rows 18..35 of the test matrix.
  {
    constexpr int64_t kRows = 18;
    const auto* gate = this->q_.data();
    const auto* up = gate + kRows * this->kRowBlocks;
    std::vector<float> g(kRows), u(kRows), got(kRows + 1, -777.0f);
    const unsigned ctas = (kRows + k::kQ8Warps - 1) / k::kQ8Warps;
    emulator::launch({ctas}, {k::kQ8Threads}, [&] {
      k::matvec_q8_kernel<T>(gate, kRows, this->kRowBlocks, xq.data(), g.data());
    });
    emulator::launch({ctas}, {k::kQ8Threads}, [&] {
      k::matvec_q8_kernel<T>(up, kRows, this->kRowBlocks, xq.data(), u.data());
    });
    const k::GluArgs silu{ORCD_MOE_ACT_SWIGLU, 0.0f, 0.0f, nullptr, nullptr};
    emulator::launch({ctas, 1}, {k::kQ8Threads}, [&] {
      k::matvec_glu_q8_kernel<T>(gate, up, kRows, this->kRowBlocks, kRows * this->kRowBlocks,
                                 nullptr, 1, xq.data(), runs, silu, got.data(), kRows);
    });
    for (int64_t r = 0; r < kRows; ++r) {
      const float expect = GatedActivation(ORCD_MOE_ACT_SWIGLU, g[r], u[r], 0.0f, 0.0f);
      ASSERT_EQ(std::memcmp(&got[r], &expect, sizeof expect), 0)
          << T::kName << " row " << r << ": " << got[r] << " vs " << expect;
    }
    ASSERT_EQ(got[kRows], -777.0f) << "wrote past the rows";
  }
  // Experts of 9 rows (gate: rows 9e..; up: one row further), picked by
  // device ids over two x rows, per-expert biases, gpt-oss's activation.
  constexpr int64_t kExpertRows = 9;
  const int64_t expert_blocks = kExpertRows * this->kRowBlocks;
  const auto* gate = this->q_.data();
  const auto* up = gate + this->kRowBlocks;
  const std::vector<int32_t> ids = {3, 0, 2, 3};
  const std::vector<float> gate_bias = random_normal(4 * kExpertRows, 37);
  const std::vector<float> up_bias = random_normal(4 * kExpertRows, 38);
  const int64_t y_stride = kExpertRows + 2;
  std::vector<float> g(ids.size() * y_stride), u(g.size()), got(g.size(), -777.0f);
  const EmulatedDim3 grid{static_cast<unsigned>((kExpertRows + k::kQ8Warps - 1) / k::kQ8Warps),
                          static_cast<unsigned>(ids.size())};
  for (auto [w, y] : {std::pair{gate, g.data()}, std::pair{up, u.data()}}) {
    emulator::launch(grid, {k::kQ8Threads}, [&] {
      k::matvec_ids_q8_kernel<T>(w, kExpertRows, this->kRowBlocks, expert_blocks, ids.data(), 2,
                                 xq.data(), runs, y, y_stride);
    });
  }
  const k::GluArgs oai{ORCD_MOE_ACT_SWIGLU_OAI, 1.702f, 7.0f, gate_bias.data(), up_bias.data()};
  emulator::launch(grid, {k::kQ8Threads}, [&] {
    k::matvec_glu_q8_kernel<T>(gate, up, kExpertRows, this->kRowBlocks, expert_blocks, ids.data(),
                               2, xq.data(), runs, oai, got.data(), y_stride);
  });
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
      ASSERT_EQ(std::memcmp(&got[at], &expect, sizeof expect), 0)
          << T::kName << " pick " << i << " row " << r << ": " << got[at] << " vs " << expect;
    }
  }
}

// Up to four weights with one x in one launch (ABI 1.5 matvec_multi_q8):
// each part's rows are matvec_q8's bit for bit; parts of 13, 1, 19 and 4 rows
// leave partial CTAs at every boundary, and nothing past a part is written.
TYPED_TEST(QuantCudaEmulation, MatvecMultiQ8GivesEachPartsMatvecQ8BitForBit) {
  using T = TypeParam;
  const std::vector<orcd_q8_x32> xq = round_to_q8_x32(random_normal(this->kCols, 39));
  const std::vector<int64_t> rows = {13, 1, 19, 4};  // 37 rows of the test matrix
  std::vector<std::vector<float>> got, expect;
  orcd_matvec_part parts[4];
  int64_t first = 0;
  for (size_t j = 0; j < rows.size(); ++j) {
    const auto* w = this->q_.data() + first * this->kRowBlocks;
    got.emplace_back(rows[j] + 1, -777.0f);
    expect.emplace_back(rows[j]);
    parts[j] = {w, rows[j], got[j].data()};
    const unsigned ctas = static_cast<unsigned>((rows[j] + k::kQ8Warps - 1) / k::kQ8Warps);
    emulator::launch({ctas}, {k::kQ8Threads}, [&] {
      k::matvec_q8_kernel<T>(w, rows[j], this->kRowBlocks, xq.data(), expect[j].data());
    });
    first += rows[j];
  }
  ASSERT_EQ(k::launch_matvec_multi_q8<T>(parts, 4, this->kCols, xq.data(), nullptr), cudaSuccess);
  for (size_t j = 0; j < rows.size(); ++j) {
    for (int64_t r = 0; r < rows[j]; ++r) {
      ASSERT_EQ(std::memcmp(&got[j][r], &expect[j][r], sizeof(float)), 0)
          << T::kName << " part " << j << " row " << r << ": " << got[j][r] << " vs "
          << expect[j][r];
    }
    ASSERT_EQ(got[j][rows[j]], -777.0f) << "part " << j << " wrote past its rows";
  }
  EXPECT_EQ(k::launch_matvec_multi_q8<T>(parts, 5, this->kCols, xq.data(), nullptr),
            cudaErrorInvalidValue);
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
