// The CUDA ops as the host receives them: loaded from the plugin modules,
// launched on a stream the host owns, errors as orcd_error objects.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numeric>

#include "common/cpu_kernel_set.h"
#include "device_buffer.h"
#include "orcd/ops.h"
#include "plugin_test_host.h"
#include "quant_test_support.h"

namespace orcd::quant::test {
namespace {

class QuantCudaPlugin : public testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    ORCD_SKIP_WITHOUT_GPU();
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
    set_test_cuda_stream(stream_);
    plugin_ = std::make_unique<LoadedPlugin>(GetParam());
    ASSERT_TRUE(plugin_->loaded()) << plugin_->path() << ": " << plugin_->error();
    descriptor_ = plugin_->entry()(&test_host_services());
    ASSERT_NE(descriptor_, nullptr);
  }
  void TearDown() override {
    set_test_cuda_stream(nullptr);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  cudaStream_t stream_ = nullptr;
  std::unique_ptr<LoadedPlugin> plugin_;
  const orcd_plugin_descriptor* descriptor_ = nullptr;
};

// Each type's matvec on the fixture equals the float64 reference (1e-5
// relative, the CPU test's bound: same decoded weights, f32 accumulation).
TEST_P(QuantCudaPlugin, MatvecOnHostStreamMatchesFixtures) {
  const orcd_quant_plugin& q = *descriptor_->quant;
  for (uint32_t i = 0; i < q.n_types; ++i) {
    const orcd_quant_type& t = q.types[i];
    ASSERT_NE(t.cuda, nullptr) << t.name;
    const std::optional<Golden> g = load_golden(t.name);
    ASSERT_TRUE(g.has_value());
    DeviceBuffer<uint8_t> d_w(g->q);
    DeviceBuffer<float> d_x(g->x);
    DeviceBuffer<float> d_y(static_cast<size_t>(g->rows));
    ASSERT_TRUE(d_w.ok() && d_x.ok() && d_y.ok());
    OwnedError e(t.cuda->matvec(d_w.get(), g->rows, g->cols, d_x.get(), d_y.get(),
                                test_host_services().cuda_stream()));
    ASSERT_TRUE(e.ok()) << e.message();
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    const std::vector<float> y = d_y.download();
    ASSERT_EQ(y.size(), g->y.size());
    for (int64_t r = 0; r < g->rows; ++r) {
      EXPECT_NEAR(y[r], g->y[r], 1e-5 * std::fabs(g->y[r])) << t.name << " row " << r;
    }
  }
}

TEST_P(QuantCudaPlugin, BadArgumentsGiveInvalidArgumentErrors) {
  const orcd_quant_type& t = descriptor_->quant->types[0];
  DeviceBuffer<float> d(1024);
  ASSERT_TRUE(d.ok());
  OwnedError cols(t.cuda->matvec(d.get(), 4, t.block_elems + 1, d.get(), d.get(), stream_));
  EXPECT_EQ(cols.code(), ORCD_ERR_INVALID_ARGUMENT) << cols.message();
  OwnedError stride(t.cuda->matmul(d.get(), 8, t.block_elems, d.get(), 2, d.get(), 4, stream_));
  EXPECT_EQ(stride.code(), ORCD_ERR_INVALID_ARGUMENT) << stride.message();
  OwnedError ids(t.cuda->get_rows(d.get(), t.block_elems, nullptr, 3, d.get(), stream_));
  EXPECT_EQ(ids.code(), ORCD_ERR_INVALID_ARGUMENT) << ids.message();
  // The fused gate/up matvec: a missing up, several picks without ids, an
  // activation that does not exist.
  ASSERT_TRUE(ORCD_HAS_FIELD(t.cuda, orcd_quant_cuda_ops, matvec_glu_q8));
  ASSERT_NE(t.cuda->matvec_glu_q8, nullptr);
  const int64_t glu_cols = t.block_elems * 32 / std::gcd<int64_t>(t.block_elems, 32);
  const int64_t expert_stride = glu_cols / t.block_elems * t.block_bytes;  // one row per expert
  const auto* xq = reinterpret_cast<const orcd_q8_x32*>(d.get());
  const orcd_glu_params silu{ORCD_MOE_ACT_SWIGLU, 0.0f, 0.0f, nullptr, nullptr};
  const orcd_glu_params unknown{7, 0.0f, 0.0f, nullptr, nullptr};
  OwnedError no_up(t.cuda->matvec_glu_q8(d.get(), nullptr, 1, glu_cols, expert_stride, nullptr, 1,
                                         1, xq, glu_cols / 32, &silu, d.get(), 1, stream_));
  EXPECT_EQ(no_up.code(), ORCD_ERR_INVALID_ARGUMENT) << no_up.message();
  OwnedError no_ids(t.cuda->matvec_glu_q8(d.get(), d.get(), 1, glu_cols, expert_stride, nullptr, 2,
                                          1, xq, glu_cols / 32, &silu, d.get(), 1, stream_));
  EXPECT_EQ(no_ids.code(), ORCD_ERR_INVALID_ARGUMENT) << no_ids.message();
  OwnedError activation(t.cuda->matvec_glu_q8(d.get(), d.get(), 1, glu_cols, expert_stride, nullptr,
                                              1, 1, xq, glu_cols / 32, &unknown, d.get(), 1,
                                              stream_));
  EXPECT_EQ(activation.code(), ORCD_ERR_INVALID_ARGUMENT) << activation.message();
}

INSTANTIATE_TEST_SUITE_P(Plugins, QuantCudaPlugin, testing::Values("q4", "mxfp4"),
                         [](const testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace orcd::quant::test
