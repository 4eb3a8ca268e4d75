// The column-tiled GEMM (host/engine/cuda/column_tiled_gemm.h) on the emulated
// device, whose GEMM gives a column the same bits whatever the call: tiled
// calls must then write exactly the direct call's outputs, and nothing else
// (not the rows between m and ldc, not the columns past n), whatever the
// padding held from an earlier, wider call, and in blocks of rows too.
// Whether tiles make cuBLAS batch-invariant is the GPU kit's question
// (cuda_step_test.cc's tiled run).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "host/engine/cuda/column_tiled_gemm.h"
#include "host/engine/cuda/device_runtime.h"
#include "orcd/cpp/half.h"

namespace orcd::testing {
namespace {

using engine::cuda::DeviceRuntime;
using engine::cuda::GemmType;

constexpr float kUntouched = -777.0f;

struct Operands {
  std::vector<uint8_t> a, b;  // A (k x m, lda k, or m x k, lda m) and B (k x n, ldb k + 2)
};

void Fill(std::vector<uint8_t>& bytes, size_t values, GemmType type, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  bytes.resize(values * (type == GemmType::kF32 ? 4 : 2));
  for (size_t i = 0; i < values; ++i) {
    const float v = u(rng);
    if (type == GemmType::kF32) {
      std::memcpy(bytes.data() + 4 * i, &v, 4);
    } else {
      const uint16_t h = f32_to_fp16(v);
      std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
  }
}

// C (ldc = m + 3, one column more than n) after `runtime`'s GEMM.
std::vector<float> RunGemm(DeviceRuntime& runtime, bool trans_a, int64_t m, int64_t n, int64_t k,
                           GemmType type, const Operands& ops) {
  const int64_t ldb = k + 2, ldc = m + 3;
  std::vector<float> c(static_cast<size_t>(ldc * (n + 1)), kUntouched);
  runtime.Gemm(trans_a, m, n, k, type, ops.a.data(), trans_a ? k : m, ops.b.data(), ldb, c.data(),
               ldc);
  runtime.Synchronize();
  return c;
}

TEST(ColumnTiledGemm, WritesTheDirectCallsOutputsAndNothingElse) {
  const std::shared_ptr<DeviceRuntime> device = engine::cuda::CreateEmulatedRuntime(64 << 20);
  std::mt19937 rng(7);
  for (const int64_t tile : {1, 4, 8}) {
    for (const int64_t row_block : {0, 3}) {  // 0: no block below m; 3: m in blocks of 3
      // One tiled runtime through every call: each padding holds the last one's.
      const uint64_t cap = row_block == 0 ? engine::cuda::kMaxPaddedGemmBytes
                                          : static_cast<uint64_t>(row_block * tile) * sizeof(float);
      const std::shared_ptr<DeviceRuntime> tiled =
          engine::cuda::WithColumnTiledGemm(device, tile, cap);
      for (const GemmType type : {GemmType::kF32, GemmType::kF16}) {
        for (const int64_t n : {11, 1, 8, 3, 4, 17, 5}) {
          const int64_t m = 6 + n % 4, k = 37;  // m and k odd against the tiles
          const bool trans_a = n != 3;          // one call with A stored m x k
          SCOPED_TRACE("tile " + std::to_string(tile) + ", rows per call " +
                       std::to_string(row_block) + ", n " + std::to_string(n) +
                       (type == GemmType::kF32 ? ", f32" : ", f16"));
          Operands ops;
          Fill(ops.a, static_cast<size_t>(m * k), type, rng);
          Fill(ops.b, static_cast<size_t>((k + 2) * n), type, rng);
          const std::vector<float> direct = RunGemm(*device, trans_a, m, n, k, type, ops);
          const std::vector<float> got = RunGemm(*tiled, trans_a, m, n, k, type, ops);
          ASSERT_EQ(direct.size(), got.size());
          EXPECT_EQ(0, std::memcmp(direct.data(), got.data(), direct.size() * sizeof(float)))
              << "a tiled output differs from the direct call's, or a value outside C was written";
          // The direct call wrote C's m x n and nothing else: so did the tiled one.
          EXPECT_EQ(got[static_cast<size_t>(m)], kUntouched);
          EXPECT_EQ(got.back(), kUntouched);
          EXPECT_NE(got[0], kUntouched);
          EXPECT_NE(got[static_cast<size_t>((m + 3) * (n - 1) + m - 1)], kUntouched);
        }
      }
    }
  }
}

TEST(ColumnTiledGemm, RefusesATileBelowOne) {
  const std::shared_ptr<DeviceRuntime> device = engine::cuda::CreateEmulatedRuntime(1 << 20);
  EXPECT_THROW(engine::cuda::WithColumnTiledGemm(device, 0), std::exception);
}

}  // namespace
}  // namespace orcd::testing
