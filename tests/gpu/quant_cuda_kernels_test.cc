// CUDA kernels of every served type against the CPU kernels (which the CPU
// tests pin to ggml): get_rows, matvec (aligned and unaligned x) and the tiled
// prefill matmul, on shapes that leave partial tiles everywhere.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <utility>

#include "common/cpu_kernel_set.h"
#include "common/cuda_kernel_set.h"
#include "device_buffer.h"
#include "orcd/cpp/gated_activation.h"
#include "orcd/ops.h"
#include "quant_test_support.h"

namespace orcd::quant::test {
namespace {

struct Shape {
  int64_t rows;
  int64_t cols_32;   // for 32-element blocks
  int64_t cols_256;  // for 256-element super-blocks
};

// 37 rows: one full and one partial 32-row matmul tile, a partial 8-row matvec
// CTA. 130 rows: several tiles. 1184 = 37 blocks of 32, not a multiple of the
// 128-column tile; 2880 is gpt-oss's width (2816 = 11 super-blocks for K-types).
constexpr Shape kShapes[] = {{37, 1184, 768}, {130, 2880, 2816}};

// Tolerance for dot products: both sides accumulate in f32, in different
// orders (CPU: 32 lanes folded into a double every 256 columns; GPU: per-lane
// FMA chains, then a warp tree or a shared-memory tile walk). The difference
// of two such sums is bounded by a few ulp of sum |w x|; 1e-5 * sum |w x| is
// ~100x typical and still far below one misplaced or mis-decoded element,
// whose product is of order sum |w x| / cols (>= 3e-4 of it here).
constexpr double kDotTolerance = 1e-5;

class QuantCudaKernels : public testing::TestWithParam<const CpuKernels*> {
 protected:
  void SetUp() override {
    ORCD_SKIP_WITHOUT_GPU();
    cpu_ = GetParam();
    cuda_ = find_cuda_kernels(cpu_->type);
    ASSERT_NE(cuda_, nullptr) << cpu_->name << " has no CUDA kernels";
    ASSERT_EQ(cuda_->block_elems, cpu_->block_elems);
    ASSERT_EQ(cuda_->block_bytes, cpu_->block_bytes);
  }

  int64_t cols_of(const Shape& s) const {
    return cpu_->block_elems == 256 ? s.cols_256 : s.cols_32;
  }

  // Random weights of the shape, quantized by the reference quantizer.
  std::vector<uint8_t> quantized(int64_t rows, int64_t cols, uint64_t seed) const {
    const std::vector<float> src = random_weights(rows, cols, seed);
    const int64_t row_bytes = cols / cpu_->block_elems * cpu_->block_bytes;
    std::vector<uint8_t> q(static_cast<size_t>(rows * row_bytes));
    cpu_->portable.quantize_row(src.data(), q.data(), rows * cols);
    return q;
  }

  void expect_close(const std::vector<float>& gpu, const std::vector<float>& cpu,
                    const std::vector<double>& scale, const std::string& what) const {
    ASSERT_EQ(gpu.size(), cpu.size()) << what;
    int reported = 0;
    for (size_t i = 0; i < gpu.size(); ++i) {
      if (!(std::fabs(static_cast<double>(gpu[i]) - cpu[i]) <= kDotTolerance * scale[i]) &&
          ++reported <= 5) {
        ADD_FAILURE() << cpu_->name << " " << what << " output " << i << ": GPU " << gpu[i]
                      << ", CPU " << cpu[i] << ", sum|wx| " << scale[i];
      }
    }
  }

  const CpuKernels* cpu_ = nullptr;
  const CudaKernels* cuda_ = nullptr;
};

// Decoding on the GPU runs the same decode_chunk code as the CPU, built with
// --fmad=false, so get_rows must be bit-identical (tolerance 0).
TEST_P(QuantCudaKernels, GetRowsIsBitIdenticalToCpu) {
  for (const Shape& s : kShapes) {
    const int64_t cols = cols_of(s);
    const std::vector<uint8_t> q = quantized(s.rows, cols, 11);
    const std::vector<int32_t> ids = {static_cast<int32_t>(s.rows - 1), 0, 5, 5, 17};
    const int64_t n_ids = static_cast<int64_t>(ids.size());
    std::vector<float> expect(ids.size() * cols);
    cpu_->portable.get_rows(q.data(), cols, ids.data(), n_ids, expect.data());

    DeviceBuffer<uint8_t> d_w(q);
    DeviceBuffer<int32_t> d_ids(ids);
    DeviceBuffer<float> d_out(expect.size());
    ASSERT_TRUE(d_w.ok() && d_ids.ok() && d_out.ok());
    ASSERT_EQ(cuda_->get_rows(d_w.get(), cols, d_ids.get(), n_ids, d_out.get(), nullptr),
              cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> got = d_out.download();
    ASSERT_EQ(got.size(), expect.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(same_bits(got[i], expect[i]))
          << cpu_->name << " rows " << s.rows << " cols " << cols << " element " << i << ": GPU "
          << got[i] << ", CPU " << expect[i];
    }
  }
}

// x at a 16-byte boundary takes vector loads; x one float further does not.
TEST_P(QuantCudaKernels, MatvecMatchesCpu) {
  for (const Shape& s : kShapes) {
    const int64_t cols = cols_of(s);
    const std::vector<uint8_t> q = quantized(s.rows, cols, 12);
    std::vector<float> deq(static_cast<size_t>(s.rows * cols));
    cpu_->portable.dequantize_row(q.data(), deq.data(), s.rows * cols);
    for (int64_t offset : {0, 1}) {
      std::vector<float> x_padded = random_normal(cols + 1, 13);
      const std::vector<float> x(x_padded.begin() + offset, x_padded.begin() + offset + cols);
      std::vector<float> expect(static_cast<size_t>(s.rows));
      cpu_->portable.matmul(q.data(), s.rows, cols, x.data(), 1, expect.data(), s.rows);

      DeviceBuffer<uint8_t> d_w(q);
      DeviceBuffer<float> d_x(x_padded);
      DeviceBuffer<float> d_y(expect.size());
      ASSERT_TRUE(d_w.ok() && d_x.ok() && d_y.ok());
      ASSERT_EQ(cuda_->matvec(d_w.get(), s.rows, cols, d_x.get() + offset, d_y.get(), nullptr),
                cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      expect_close(d_y.download(), expect, abs_product_sums(deq, s.rows, cols, x, 1),
                   "matvec rows " + std::to_string(s.rows) + " x offset " + std::to_string(offset));
    }
  }
}

// 8-bit activations (dp4a): against float64 over the dequantized weights
// and the rounded activations; the integer sums are exact, so the same
// tolerance as the f32 paths holds.
TEST_P(QuantCudaKernels, MatvecQ8MatchesRoundedReference) {
  ASSERT_NE(cuda_->matvec_q8, nullptr) << cpu_->name << " has no matvec_q8";
  for (const Shape& s : kShapes) {
    const int64_t cols = cols_of(s);
    const std::vector<uint8_t> q = quantized(s.rows, cols, 16);
    std::vector<float> deq(static_cast<size_t>(s.rows * cols));
    cpu_->portable.dequantize_row(q.data(), deq.data(), s.rows * cols);
    const std::vector<orcd_q8_x32> xq = round_to_q8_x32(random_normal(cols, 17));
    const std::vector<float> rounded = q8_x32_values(xq);
    const std::vector<double> reference = reference_matmul(deq, s.rows, cols, rounded, 1);

    DeviceBuffer<uint8_t> d_w(q);
    DeviceBuffer<orcd_q8_x32> d_xq(xq);
    DeviceBuffer<float> d_y(static_cast<size_t>(s.rows));
    ASSERT_TRUE(d_w.ok() && d_xq.ok() && d_y.ok());
    ASSERT_EQ(cuda_->matvec_q8(d_w.get(), s.rows, cols, d_xq.get(), d_y.get(), nullptr),
              cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    expect_close(d_y.download(), std::vector<float>(reference.begin(), reference.end()),
                 abs_product_sums(deq, s.rows, cols, rounded, 1),
                 "matvec_q8 rows " + std::to_string(s.rows));
  }
}

// Gate and up in one launch (matvec_glu_q8): the activation of the two
// matvec_q8 dots, picked by device ids, with biases. The dots are the same
// device code (bit for bit); the activation's expf is the device's, so the
// host reference gets a few ulp (1e-6 relative).
TEST_P(QuantCudaKernels, MatvecGluQ8IsTheActivatedMatvecQ8Dots) {
  ASSERT_NE(cuda_->matvec_glu_q8, nullptr) << cpu_->name << " has no matvec_glu_q8";
  for (const Shape& s : kShapes) {
    const int64_t cols = cols_of(s);
    const int64_t rows = s.rows / 2;  // two experts of `rows` rows
    const std::vector<uint8_t> gate = quantized(2 * rows, cols, 18);
    const std::vector<uint8_t> up = quantized(2 * rows, cols, 19);
    const int64_t expert_stride = static_cast<int64_t>(gate.size()) / 2;
    const std::vector<orcd_q8_x32> xq = round_to_q8_x32(random_normal(cols, 20));
    const std::vector<float> gate_bias = random_normal(2 * rows, 21);
    const std::vector<float> up_bias = random_normal(2 * rows, 22);
    const std::vector<int32_t> ids = {1, 0, 1};
    DeviceBuffer<uint8_t> d_gate(gate), d_up(up);
    DeviceBuffer<orcd_q8_x32> d_xq(xq);
    DeviceBuffer<float> d_gate_bias(gate_bias), d_up_bias(up_bias);
    DeviceBuffer<int32_t> d_ids(ids);
    DeviceBuffer<float> d_g(ids.size() * rows), d_u(ids.size() * rows), d_h(ids.size() * rows);
    ASSERT_TRUE(d_gate.ok() && d_up.ok() && d_xq.ok() && d_ids.ok() && d_h.ok());
    for (auto [w, y] : {std::pair{&d_gate, &d_g}, std::pair{&d_up, &d_u}}) {
      ASSERT_EQ(cuda_->matvec_ids_q8(w->get(), rows, cols, expert_stride, d_ids.get(),
                                     static_cast<int64_t>(ids.size()), 3, d_xq.get(), cols / 32,
                                     y->get(), rows, nullptr),
                cudaSuccess);
    }
    const orcd_glu_params glu{ORCD_MOE_ACT_SWIGLU_OAI, 1.702f, 7.0f, d_gate_bias.get(),
                              d_up_bias.get()};
    ASSERT_EQ(cuda_->matvec_glu_q8(d_gate.get(), d_up.get(), rows, cols, expert_stride, d_ids.get(),
                                   static_cast<int64_t>(ids.size()), 3, d_xq.get(), cols / 32, &glu,
                                   d_h.get(), rows, nullptr),
              cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> g = d_g.download(), u = d_u.download(), h = d_h.download();
    for (size_t i = 0; i < ids.size(); ++i) {
      for (int64_t r = 0; r < rows; ++r) {
        const size_t at = i * rows + r;
        const int64_t b = ids[i] * rows + r;
        const float expect = GatedActivation(ORCD_MOE_ACT_SWIGLU_OAI, g[at] + gate_bias[b],
                                             u[at] + up_bias[b], glu.alpha, glu.limit);
        ASSERT_NEAR(h[at], expect, 1e-6 * std::fabs(expect) + 1e-30)
            << cpu_->name << " cols " << cols << " pick " << i << " row " << r;
      }
    }
  }
}

// Several weights with one x in one launch (matvec_multi_q8): each part's
// outputs are matvec_q8's, bit for bit (the same device code per row).
TEST_P(QuantCudaKernels, MatvecMultiQ8IsEachPartsMatvecQ8) {
  ASSERT_NE(cuda_->matvec_multi_q8, nullptr) << cpu_->name << " has no matvec_multi_q8";
  for (const Shape& s : kShapes) {
    const int64_t cols = cols_of(s);
    const std::vector<uint8_t> q = quantized(s.rows, cols, 23);
    const int64_t row_bytes = static_cast<int64_t>(q.size()) / s.rows;
    const std::vector<orcd_q8_x32> xq = round_to_q8_x32(random_normal(cols, 24));
    const int64_t rows[3] = {s.rows / 2, 1, s.rows - s.rows / 2 - 1};
    DeviceBuffer<uint8_t> d_w(q);
    DeviceBuffer<orcd_q8_x32> d_xq(xq);
    DeviceBuffer<float> d_each(static_cast<size_t>(s.rows)), d_multi(static_cast<size_t>(s.rows));
    ASSERT_TRUE(d_w.ok() && d_xq.ok() && d_each.ok() && d_multi.ok());
    orcd_matvec_part parts[3];
    int64_t first = 0;
    for (int j = 0; j < 3; ++j) {
      parts[j] = {d_w.get() + first * row_bytes, rows[j], d_multi.get() + first};
      ASSERT_EQ(cuda_->matvec_q8(d_w.get() + first * row_bytes, rows[j], cols, d_xq.get(),
                                 d_each.get() + first, nullptr),
                cudaSuccess);
      first += rows[j];
    }
    ASSERT_EQ(cuda_->matvec_multi_q8(parts, 3, cols, d_xq.get(), nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> each = d_each.download(), multi = d_multi.download();
    for (int64_t r = 0; r < s.rows; ++r) {
      ASSERT_EQ(std::memcmp(&each[r], &multi[r], sizeof(float)), 0)
          << cpu_->name << " cols " << cols << " row " << r << ": " << multi[r] << " vs "
          << each[r];
    }
  }
}

// One weight times several x rows (matvec_xs_q8, several sequences' decode
// tokens): each row's outputs are matvec_q8's for its x, bit for bit, over a
// full pass of 8 rows and a partial one.
TEST_P(QuantCudaKernels, MatvecXsQ8IsEachRowsMatvecQ8) {
  ASSERT_NE(cuda_->matvec_xs_q8, nullptr) << cpu_->name << " has no matvec_xs_q8";
  constexpr int64_t kXs = 11;
  for (const Shape& s : kShapes) {
    const int64_t cols = cols_of(s);
    const int64_t runs = cols / 32;
    const std::vector<uint8_t> q = quantized(s.rows, cols, 25);
    const std::vector<orcd_q8_x32> xq = round_to_q8_x32(random_normal(kXs * cols, 26));
    DeviceBuffer<uint8_t> d_w(q);
    DeviceBuffer<orcd_q8_x32> d_xq(xq);
    DeviceBuffer<float> d_each(static_cast<size_t>(kXs * s.rows)),
        d_xs(static_cast<size_t>(kXs * s.rows));
    ASSERT_TRUE(d_w.ok() && d_xq.ok() && d_each.ok() && d_xs.ok());
    for (int64_t t = 0; t < kXs; ++t) {
      ASSERT_EQ(cuda_->matvec_q8(d_w.get(), s.rows, cols, d_xq.get() + t * runs,
                                 d_each.get() + t * s.rows, nullptr),
                cudaSuccess);
    }
    ASSERT_EQ(cuda_->matvec_xs_q8(d_w.get(), s.rows, cols, d_xq.get(), runs, kXs, d_xs.get(),
                                  s.rows, nullptr),
              cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> each = d_each.download(), xs = d_xs.download();
    for (size_t i = 0; i < each.size(); ++i) {
      ASSERT_EQ(std::memcmp(&each[i], &xs[i], sizeof(float)), 0)
          << cpu_->name << " cols " << cols << " x row " << i / s.rows << " row " << i % s.rows
          << ": " << xs[i] << " vs " << each[i];
    }
  }
}

// 1 token (routed to matvec), 5 and 17 (one partial token tile), 40 (two
// tiles); y_stride > rows, and the padding between tokens stays untouched.
TEST_P(QuantCudaKernels, MatmulMatchesCpu) {
  for (const Shape& s : kShapes) {
    const int64_t cols = cols_of(s);
    const std::vector<uint8_t> q = quantized(s.rows, cols, 14);
    std::vector<float> deq(static_cast<size_t>(s.rows * cols));
    cpu_->portable.dequantize_row(q.data(), deq.data(), s.rows * cols);
    for (int64_t n_tokens : {1, 5, 17, 40}) {
      const std::vector<float> x = random_normal(n_tokens * cols, 15 + n_tokens);
      const int64_t y_stride = s.rows + 5;
      std::vector<float> expect(static_cast<size_t>(n_tokens * y_stride), -777.0f);
      cpu_->portable.matmul(q.data(), s.rows, cols, x.data(), n_tokens, expect.data(), y_stride);

      DeviceBuffer<uint8_t> d_w(q);
      DeviceBuffer<float> d_x(x);
      DeviceBuffer<float> d_y(std::vector<float>(expect.size(), -777.0f));
      ASSERT_TRUE(d_w.ok() && d_x.ok() && d_y.ok());
      ASSERT_EQ(
          cuda_->matmul(d_w.get(), s.rows, cols, d_x.get(), n_tokens, d_y.get(), y_stride, nullptr),
          cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<float> got = d_y.download();
      ASSERT_EQ(got.size(), expect.size());

      // Compare the outputs, then check the padding.
      const std::vector<double> sums = abs_product_sums(deq, s.rows, cols, x, n_tokens);
      std::vector<float> got_dense, expect_dense;
      for (int64_t t = 0; t < n_tokens; ++t) {
        for (int64_t r = 0; r < s.rows; ++r) {
          got_dense.push_back(got[t * y_stride + r]);
          expect_dense.push_back(expect[t * y_stride + r]);
        }
        for (int64_t r = s.rows; r < y_stride; ++r) {
          ASSERT_EQ(got[t * y_stride + r], -777.0f) << "padding of token " << t << " overwritten";
        }
      }
      expect_close(got_dense, expect_dense, sums,
                   "matmul rows " + std::to_string(s.rows) + " tokens " + std::to_string(n_tokens));
    }
  }
}

// Nothing to do must launch nothing and succeed.
TEST_P(QuantCudaKernels, EmptyWorkSucceeds) {
  EXPECT_EQ(cuda_->matvec(nullptr, 0, cpu_->block_elems, nullptr, nullptr, nullptr), cudaSuccess);
  EXPECT_EQ(cuda_->matmul(nullptr, 4, cpu_->block_elems, nullptr, 0, nullptr, 4, nullptr),
            cudaSuccess);
  EXPECT_EQ(cuda_->get_rows(nullptr, cpu_->block_elems, nullptr, 0, nullptr, nullptr), cudaSuccess);
}

INSTANTIATE_TEST_SUITE_P(AllTypes, QuantCudaKernels, testing::ValuesIn(all_cpu_kernels()),
                         [](const testing::TestParamInfo<const CpuKernels*>& info) {
                           return std::string(info.param->name);
                         });

}  // namespace
}  // namespace orcd::quant::test
