// Structured output's masks on the device sampler (CUDA backend, emulated
// device): a row sampled with allowed-id bits (SampleDraw::allowed) picks
// what the CPU sampler picks from the same row with every other id set to
// -inf (TokenConstraint::Mask's way), for greedy and filtered draws; a row
// asking for log-probabilities reports them from the raw row, as the host
// does (ComputeLogprobs of the unmasked logits). The engine test is built
// into the GPU tests too (cuda_engine_under_test.h); the kernel test runs
// the emulator's build of the kernel only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cuda_engine_under_test.h"
#include "emulated_sample_rows.h"
#include "engine_test_support.h"
#include "golden.h"
#include "host/engine/cuda/op_kernels.h"
#include "host/sampling/sampler.h"
#include "host/sampling/token_logprobs.h"

namespace orcd::testing {
namespace {

// Bits of every id `keep` says yes to, over `words` words.
std::vector<uint64_t> Bits(size_t words, int64_t vocab, const std::function<bool(int64_t)>& keep) {
  std::vector<uint64_t> bits(words, 0);
  for (int64_t i = 0; i < vocab; ++i) {
    if (keep(i)) bits[static_cast<size_t>(i) / 64] |= uint64_t{1} << (i % 64);
  }
  return bits;
}

std::vector<float> Masked(std::span<const float> row, const std::vector<uint64_t>& bits) {
  std::vector<float> out(row.begin(), row.end());
  for (size_t i = 0; i < out.size(); ++i) {
    if (((bits[i / 64] >> (i % 64)) & 1u) == 0) out[i] = -std::numeric_limits<float>::infinity();
  }
  return out;
}

bool Allowed(const std::vector<uint64_t>& bits, int32_t id) {
  return (bits[static_cast<size_t>(id) / 64] >> (id % 64)) & 1u;
}

// Through the engine (staging the bits, the launch): each step allows
// another seventh of the vocabulary, one step a single id, one step the ids
// the model likes least (the mask, not the model, decides).
TEST(CudaMaskedSampling, EnginePicksAsTheCpuFromTheMaskedRow) {
  ORCD_SKIP_WITHOUT_CUDA();
  struct Case {
    const char* name;
    SamplerConfig config;
  };
  const std::vector<Case> cases = {
      {"greedy", {0.0, 1.0, 0, 1.0, 0.0, 41}},
      {"filters and a penalty", {0.9, 1.3, 40, 0.9, 0.02, 42}},
      {"temperature 1", {1.0, 1.0, 0, 1.0, 0.0, 43}},
  };
  const char* model = "real/stories260K";
  const Golden golden = LoadGolden(model);
  for (const Case& c : cases) {
    auto host_side = LoadCudaEngine(model, {});
    auto device_side = LoadCudaEngine(model, {});
    const int64_t vocab = host_side->info().vocab;
    const size_t words = static_cast<size_t>((vocab + 63) / 64);
    Sampler host(c.config), device(c.config);
    TokenLogprobs reported;
    std::span<const float> logits = host_side->Prefill(golden.prompt);
    std::vector<uint64_t> bits;
    const auto mask_for = [&](int step, std::span<const float> row) {
      if (step == 3) return Bits(words, vocab, [](int64_t i) { return i == 77; });
      if (step == 5) {  // the lowest-scored quarter
        std::vector<float> sorted(row.begin(), row.end());
        std::nth_element(sorted.begin(), sorted.begin() + vocab / 4, sorted.end());
        const float cut = sorted[static_cast<size_t>(vocab / 4)];
        return Bits(words, vocab, [&](int64_t i) { return row[static_cast<size_t>(i)] < cut; });
      }
      return Bits(words, vocab, [step](int64_t i) { return (i + step) % 7 == 0; });
    };
    const auto draw = [&](bool with_logprobs) {
      SampleDraw d = device.NextDraw();
      d.allowed = bits;
      if (with_logprobs) {
        d.top_logprobs = 4;
        d.logprobs = &reported;
      }
      return engine::SampleRequest::From(d);
    };
    bits = mask_for(0, logits);
    int32_t on_device = device_side->PrefillSample(golden.prompt, draw(false));
    for (int step = 0; step < 8; ++step) {
      const std::string where = std::string(c.name) + ", step " + std::to_string(step);
      const bool with_logprobs = step % 2 == 1;
      std::vector<float> row = Masked(logits, bits);
      const int32_t on_host = host.Sample(row);
      ASSERT_EQ(on_device, on_host) << where;
      ASSERT_TRUE(Allowed(bits, on_device)) << where;
      if (step == 3) {
        EXPECT_EQ(on_device, 77) << where;
      }
      if (step > 0 && step % 2 == 0) {  // the previous draw asked for log-probabilities
        const std::vector<float> raw(logits.begin(), logits.end());
        const TokenLogprobs expected = ComputeLogprobs(raw, on_device, 4);
        EXPECT_EQ(reported.chosen.id, on_device) << where;
        EXPECT_NEAR(reported.chosen.logprob, expected.chosen.logprob, 1e-5) << where;
        ASSERT_EQ(reported.top.size(), expected.top.size()) << where;
        for (size_t k = 0; k < expected.top.size(); ++k)
          EXPECT_EQ(reported.top[k].id, expected.top[k].id) << where << ", rank " << k;
      }
      device.Record(on_device);
      logits = host_side->Decode(on_host);
      bits = mask_for(step + 1, logits);
      on_device = device_side->DecodeSample(on_host, draw(with_logprobs));
    }
  }
}

// The kernel alone at an odd vocabulary (4099: the last word's bits past it
// are set and must not matter), a masked row between two free ones in one
// launch: each row's pick is the CPU's on its own (masked) row.
#if !ORCD_ADAPTER_TEST_ON_GPU
TEST(CudaMaskedSampling, KernelMasksOnlyItsOwnRow) {
  constexpr int64_t kVocab = 4099;
  std::mt19937 gen(5);
  std::normal_distribution<float> noise(0.0f, 2.0f);
  std::vector<float> row(kVocab);
  for (float& v : row) v = noise(gen);
  const size_t words = (kVocab + 63) / 64;
  std::vector<uint64_t> bits =
      Bits(words, kVocab, [](int64_t i) { return i % 5 == 2 || i == kVocab - 1; });
  bits.back() |= ~uint64_t{0} << (kVocab % 64);  // past the vocabulary
  const SamplerConfig config{0.7, 1.0, 0, 0.95, 0.0, 51};
  std::vector<Sampler> host(3, Sampler(config)), device(3, Sampler(config));
  std::set<int32_t> picks;
  for (int step = 0; step < 6; ++step) {
    std::vector<float> logits;
    std::vector<engine::cuda::SampleRow> params(3);
    for (size_t r = 0; r < 3; ++r) {
      const SampleDraw d = device[r].NextDraw();
      engine::cuda::SampleRow& p = params[r];
      p.logits_offset = static_cast<int64_t>(logits.size());
      logits.insert(logits.end(), row.begin(), row.end());
      p.penalty = 1.0f;
      p.inv_temperature = static_cast<float>(1.0 / config.temperature);
      p.top_p = config.top_p;
      p.uniform = d.uniform;
      p.top_logprobs = -1;
      p.allowed_offset = r == 1 ? 0 : -1;
    }
    const std::vector<int32_t> out =
        SampleRowsOnTheEmulator(logits, kVocab, params, {}, nullptr, bits.data());
    for (size_t r = 0; r < 3; ++r) {
      std::vector<float> own = r == 1 ? Masked(row, bits) : row;
      EXPECT_EQ(out[r], host[r].Sample(own)) << "row " << r << ", step " << step;
    }
    EXPECT_TRUE(Allowed(bits, out[1]) && out[1] < kVocab) << out[1];
    picks.insert(out[1]);
  }
  EXPECT_GT(picks.size(), 1u) << "the draws exercised nothing";
}

#endif  // !ORCD_ADAPTER_TEST_ON_GPU

}  // namespace
}  // namespace orcd::testing
