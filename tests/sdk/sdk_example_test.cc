// The out-of-tree example plugin (sdk/examples/q8_1), built against the
// installed SDK, loads through the registry and computes correctly.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "host/plugins/host_services.h"
#include "host/plugins/plugin_registry.h"

namespace orcd {
namespace {

TEST(SdkExample, OutOfTreePluginLoadsAndComputes) {
  PluginRegistry registry(HostServices());
  ASSERT_TRUE(registry.LoadFile(ORCD_SDK_EXAMPLE_PLUGIN))
      << (registry.refused().empty() ? "" : registry.refused()[0].reason);
  auto claim = registry.FindQuantType(ORCD_TYPE_Q8_1);
  ASSERT_NE(claim.plugin, nullptr);
  EXPECT_EQ(claim.plugin->name, "example-q8_1");
  const orcd_quant_cpu_ops* cpu = claim.entry->cpu;

  // Two rows of 64: quantize, dequantize, and matmul against the
  // dequantized weights. Q8_1 keeps 8 bits per value, so the round trip is
  // within half a step (amax/127/2) of the input.
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> w(128), x(64);
  for (float& v : w) v = normal(rng);
  for (float& v : x) v = normal(rng);
  std::vector<uint8_t> q(2 * 2 * claim.entry->block_bytes);
  cpu->quantize_row(w.data(), q.data(), 128);
  std::vector<float> deq(128);
  cpu->dequantize_row(q.data(), deq.data(), 128);
  for (int b = 0; b < 4; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(w[b * 32 + j]));
    for (int j = 0; j < 32; ++j) {
      EXPECT_NEAR(deq[b * 32 + j], w[b * 32 + j], amax / 127.0f * 0.5f + 1e-3f);
    }
  }
  float y[2];
  cpu->matmul(q.data(), 2, 64, x.data(), 1, y, 2);
  for (int r = 0; r < 2; ++r) {
    double ref = 0;
    for (int c = 0; c < 64; ++c) ref += static_cast<double>(deq[r * 64 + c]) * x[c];
    EXPECT_NEAR(y[r], ref, 1e-4 * (1 + std::fabs(ref)));
  }
}

}  // namespace
}  // namespace orcd
