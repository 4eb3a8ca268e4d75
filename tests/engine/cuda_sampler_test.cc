// The device sampler (CUDA backend, emulated device) against the CPU sampler
// (host/sampling) on the same logits: two engines on the same file compute
// bit-identical logits; one hands them to the host Sampler, the other samples
// on the device from the same seeded draws. The chosen tokens must be the
// same at every step, for every configuration: temperature, top-k, top-p,
// min-p, repetition penalty (also with temperature 0), all off. Vocabularies
// of 512 (a power of two) and 4099 (padded to 8192 for the sort).
//
// What could differ and why it does not here: the device's expf and its
// chunked double sums move a probability by an ulp or so; a draw would have to
// land within that of a boundary (~1e-7 of the mass) to change the pick.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engine_test_support.h"
#include "golden.h"
#include "host/sampling/sampler.h"

namespace orcd::testing {
namespace {

struct SamplerCase {
  const char* name;
  SamplerConfig config;
};

TEST(CudaSampler, ChoosesWhatTheCpuSamplerChooses) {
  const std::vector<SamplerCase> cases = {
      {"temperature 1, nothing else", {1.0, 1.0, 0, 1.0, 0.0, 11}},
      {"all filters and a penalty", {0.8, 1.3, 40, 0.9, 0.05, 12}},
      {"top-p alone", {0.7, 1.0, 0, 0.5, 0.0, 13}},
      {"small top-k, hot", {1.5, 1.0, 5, 1.0, 0.0, 14}},
      {"min-p alone", {1.0, 1.0, 0, 1.0, 0.2, 15}},
      {"greedy after a penalty", {0.0, 1.5, 0, 1.0, 0.0, 16}},
      // Tiny temperatures are inside the API's range and mean greedy (their
      // limit): logits * 1e38 overflow to inf (NaN softmax without care), and
      // 1/1e-45 is past FLT_MAX itself.
      {"temperature 1e-38, scaled logits overflow", {1e-38, 1.3, 0, 0.9, 0.0, 17}},
      {"temperature 1e-45, 1/T overflows", {1e-45, 1.0, 0, 1.0, 0.0, 18}},
  };
  for (const char* model : {"real/stories260K", "qwen2-tiny.Q4_K_M"}) {
    const Golden golden = LoadGolden(model);
    for (const SamplerCase& c : cases) {
      auto host_side = LoadEmulatedCudaEngine(model);
      auto device_side = LoadEmulatedCudaEngine(model);
      ASSERT_TRUE(device_side->samples_on_device());
      Sampler host(c.config), device(c.config);
      std::vector<int32_t> chosen;
      std::span<const float> logits = host_side->Prefill(golden.prompt);
      int32_t on_device =
          device_side->PrefillSample(golden.prompt, engine::SampleRequest::From(device.NextDraw()));
      for (int step = 0; step < 12; ++step) {
        std::vector<float> row(logits.begin(), logits.end());
        const int32_t on_host = host.Sample(row);
        ASSERT_EQ(on_device, on_host) << model << ", " << c.name << ", step " << step;
        device.Record(on_device);
        chosen.push_back(on_host);
        logits = host_side->Decode(on_host);
        on_device =
            device_side->DecodeSample(on_host, engine::SampleRequest::From(device.NextDraw()));
      }
      // Not a constant stream: the draws exercised the distribution.
      if (c.config.temperature > 1e-3 && c.config.top_k != 5) {
        EXPECT_GT(std::set<int32_t>(chosen.begin(), chosen.end()).size(), 2u) << c.name;
      }
    }
  }
}

TEST(CudaSampler, CpuBackendDoesNotClaimDeviceSampling) {
  EXPECT_FALSE(LoadFixtureEngine("real/stories260K")->samples_on_device());
}

}  // namespace
}  // namespace orcd::testing
