// The CPU attention's row kernels (simd.h: dot_*_rows, axpy_*_rows) give the
// bits of the single-row calls they replace, so attention's scores and
// outputs do not depend on how its rows are grouped: lengths around the
// vector widths (8, 32, 64 and the tails between), odd row counts (the dots
// go two rows at a time) and strides wider than a row.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "host/engine/cpu/simd.h"
#include "orcd/cpp/half.h"

namespace orcd::engine::cpu {
namespace {

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class SimdRows : public ::testing::Test {
 protected:
  void SetUp() override { RecordProperty("simd", Simd().name); }
  std::mt19937 rng_{11};
  std::normal_distribution<float> normal_{0.0f, 1.0f};

  std::vector<float> Normal(size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = normal_(rng_);
    return v;
  }
  std::vector<uint16_t> Half(const std::vector<float>& v) {
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = f32_to_fp16(v[i]);
    return h;
  }
};

constexpr int64_t kLengths[] = {1, 7, 8, 9, 31, 32, 33, 64, 72, 96, 100, 128, 136};
constexpr int64_t kRowCounts[] = {1, 2, 3, 7, 16};

TEST_F(SimdRows, DotsAreTheSingleRowDots) {
  const SimdKernels& s = Simd();
  for (int64_t n : kLengths) {
    for (int64_t rows : kRowCounts) {
      const int64_t stride = n + 5;
      const std::vector<float> f32 = Normal(static_cast<size_t>(rows * stride));
      const std::vector<uint16_t> f16 = Half(f32);
      const std::vector<float> b = Normal(static_cast<size_t>(n));
      std::vector<float> got32(rows), want32(rows), got16(rows), want16(rows);
      s.dot_f32_rows(f32.data(), stride, rows, b.data(), n, got32.data());
      s.dot_f16_rows(f16.data(), stride, rows, b.data(), n, got16.data());
      for (int64_t j = 0; j < rows; ++j) {
        want32[j] = s.dot_f32(f32.data() + j * stride, b.data(), n);
        want16[j] = s.dot_f16(f16.data() + j * stride, b.data(), n);
      }
      const std::string shape = std::to_string(rows) + " rows of " + std::to_string(n);
      EXPECT_TRUE(SameBits(got32, want32)) << s.name << " f32, " << shape;
      EXPECT_TRUE(SameBits(got16, want16)) << s.name << " f16, " << shape;
    }
  }
}

TEST_F(SimdRows, AxpysAreTheSingleRowAxpysInOrder) {
  const SimdKernels& s = Simd();
  for (int64_t n : kLengths) {
    for (int64_t rows : kRowCounts) {
      const int64_t stride = n + 3;
      const std::vector<float> f32 = Normal(static_cast<size_t>(rows * stride));
      const std::vector<uint16_t> f16 = Half(f32);
      const std::vector<float> w = Normal(static_cast<size_t>(rows));
      const std::vector<float> y0 = Normal(static_cast<size_t>(n));  // accumulates into y
      std::vector<float> got32 = y0, want32 = y0, got16 = y0, want16 = y0;
      s.axpy_f32_rows(w.data(), f32.data(), stride, rows, got32.data(), n);
      s.axpy_f16_rows(w.data(), f16.data(), stride, rows, got16.data(), n);
      for (int64_t j = 0; j < rows; ++j) {
        s.axpy_f32(w[j], f32.data() + j * stride, want32.data(), n);
        s.axpy_f16(w[j], f16.data() + j * stride, want16.data(), n);
      }
      const std::string shape = std::to_string(rows) + " rows of " + std::to_string(n);
      EXPECT_TRUE(SameBits(got32, want32)) << s.name << " f32, " << shape;
      EXPECT_TRUE(SameBits(got16, want16)) << s.name << " f16, " << shape;
    }
  }
}

// Grouped-query attention: the heads that share a KV head read each row once
// (dot_f16_rows_heads, axpy_f16_rows_heads) and still get the bits of one
// rows call per head: head sizes with the eight-rows path (64, 128) and
// without (the others), row counts around its eight, groups of 1-8 heads
// (the sums four heads at a time).
TEST_F(SimdRows, HeadGroupsGetEachHeadsRowsCallBits) {
  const SimdKernels& s = Simd();
  constexpr int64_t kHeadDims[] = {64, 128, 96, 40, 72};
  constexpr int64_t kGroupRows[] = {1, 7, 8, 9, 16, 23, 100};
  for (int64_t n : kHeadDims) {
    for (int64_t rows : kGroupRows) {
      for (int heads : {1, 2, 4, 5, 7, 8}) {
        const int64_t stride = n * 2;  // a cache row holds this head's KV among others
        const std::vector<uint16_t> kv = Half(Normal(static_cast<size_t>(rows * stride)));
        const std::vector<float> q = Normal(static_cast<size_t>(heads * n));
        const int64_t out_stride = rows + 3;
        std::vector<float> got(static_cast<size_t>(heads * out_stride), -1.0f), want = got;
        s.dot_f16_rows_heads(kv.data(), stride, rows, q.data(), n, heads, n, got.data(),
                             out_stride);
        for (int h = 0; h < heads; ++h) {
          s.dot_f16_rows(kv.data(), stride, rows, q.data() + h * n, n,
                         want.data() + h * out_stride);
        }
        const std::string shape = std::to_string(heads) + " heads, " + std::to_string(rows) +
                                  " rows of " + std::to_string(n);
        EXPECT_TRUE(SameBits(got, want)) << s.name << " dots, " << shape;

        const std::vector<float> w = Normal(static_cast<size_t>(heads * out_stride));
        const std::vector<float> y0 = Normal(static_cast<size_t>(heads * n));
        std::vector<float> got_y = y0, want_y = y0;
        s.axpy_f16_rows_heads(w.data(), out_stride, kv.data(), stride, rows, heads, got_y.data(), n,
                              n);
        for (int h = 0; h < heads; ++h) {
          s.axpy_f16_rows(w.data() + h * out_stride, kv.data(), stride, rows, want_y.data() + h * n,
                          n);
        }
        EXPECT_TRUE(SameBits(got_y, want_y)) << s.name << " axpys, " << shape;
      }
    }
  }
}

// q8_0 KV rows (limits.kv_type: q8_0): the quantizer writes ggml's bytes
// (quantize_row_q8_0_ref, fixtures/quant/Q8_0: 8 rows of 512 with outliers),
// and the row dot and axpy over those bytes agree with a float64 sum of the
// ggml-dequantized values to float rounding (1e-5 of the sum of |terms|).
std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  std::vector<uint8_t> out;
  if (f == nullptr) return out;
  uint8_t buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
  std::fclose(f);
  return out;
}

std::vector<float> ReadFloats(const std::string& path) {
  const std::vector<uint8_t> bytes = ReadBytes(path);
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

TEST_F(SimdRows, Q8RowsAreGgmlsBytesAndTheirDotsAndSums) {
  const std::string base = std::string(ORCD_FIXTURES_DIR) + "/quant/Q8_0";
  const std::vector<float> src = ReadFloats(base + ".src.f32");
  const std::vector<uint8_t> golden = ReadBytes(base + ".q.bin");
  const std::vector<float> deq = ReadFloats(base + ".deq.f32");
  const std::vector<float> x = ReadFloats(base + ".x.f32");
  constexpr int64_t kRows = 8, kCols = 512, kRowBytes = 544;
  ASSERT_EQ(src.size(), static_cast<size_t>(kRows * kCols));
  ASSERT_EQ(golden.size(), static_cast<size_t>(kRows * kRowBytes));
  std::vector<uint8_t> q(golden.size());
  for (int64_t r = 0; r < kRows; ++r) {
    QuantizeRowQ8_0(src.data() + r * kCols, q.data() + r * kRowBytes, kCols);
  }
  EXPECT_EQ(q, golden) << "not ggml's q8_0 bytes";

  const SimdKernels& s = Simd();
  std::vector<float> dots(kRows);
  s.dot_q8_0_rows(q.data(), kRowBytes, kRows, x.data(), kCols, dots.data());
  std::vector<float> w = Normal(kRows);
  std::vector<float> y(kCols, 0.0f);
  s.axpy_q8_0_rows(w.data(), q.data(), kRowBytes, kRows, y.data(), kCols);
  for (int64_t r = 0; r < kRows; ++r) {
    double want = 0.0, scale = 0.0;
    for (int64_t c = 0; c < kCols; ++c) {
      want += static_cast<double>(deq[r * kCols + c]) * x[c];
      scale += std::fabs(static_cast<double>(deq[r * kCols + c]) * x[c]);
    }
    EXPECT_NEAR(dots[r], want, 1e-5 * scale) << s.name << ", row " << r;
  }
  for (int64_t c = 0; c < kCols; ++c) {
    double want = 0.0, scale = 0.0;
    for (int64_t r = 0; r < kRows; ++r) {
      want += static_cast<double>(w[r]) * deq[r * kCols + c];
      scale += std::fabs(static_cast<double>(w[r]) * deq[r * kCols + c]);
    }
    EXPECT_NEAR(y[c], want, 1e-5 * scale + 1e-30) << s.name << ", column " << c;
  }
  // Two rows at a stride wider than a row: the same as one call each.
  std::vector<float> one(1), two(2);
  s.dot_q8_0_rows(q.data(), 2 * kRowBytes, 2, x.data(), kCols, two.data());
  s.dot_q8_0_rows(q.data() + 2 * kRowBytes, kRowBytes, 1, x.data(), kCols, one.data());
  EXPECT_EQ(std::memcmp(&two[1], &one[0], sizeof(float)), 0);
}

}  // namespace
}  // namespace orcd::engine::cpu
