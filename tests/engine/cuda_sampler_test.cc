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

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "emulated_sample_rows.h"
#include "engine_test_support.h"
#include "golden.h"
#include "host/engine/cuda/op_kernels.h"
#include "host/sampling/sampler.h"
#include "host/sampling/token_logprobs.h"

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

// The kernel alone, on rows shaped like a trained model's and unlike one, at a
// vocabulary of Qwen2.5's order: only ids within ln(vocab) + 26 ln 2 nats of
// the top are sorted, the rest summed as a tail. A peaked row (a few hundred
// candidates out of 40,000) exercises that; a flat row (every id a
// candidate) the whole sort; a row with ties the id order. The three rows are
// sampled in one launch (a batched decode step's), each with its own seeded
// draws and penalized ids: same tokens as the CPU sampler on each row alone.
TEST(CudaSampler, KernelChoosesAsTheCpuOnPeakedAndFlatRowsInOneLaunch) {
  constexpr int64_t kVocab = 40000;
  std::mt19937 gen(7);
  std::normal_distribution<float> noise(0.0f, 1.0f);
  std::vector<std::pair<const char*, std::vector<float>>> rows;
  std::vector<float> peaked(kVocab), flat(kVocab), ties(kVocab);
  for (int64_t i = 0; i < kVocab; ++i) {
    peaked[i] = i % 157 == 3 ? 12.0f + 3.0f * noise(gen) : -20.0f + 4.0f * noise(gen);
    flat[i] = 0.5f * noise(gen);
    ties[i] = static_cast<float>(static_cast<int>(4.0f * noise(gen)));
  }
  rows.emplace_back("peaked", peaked);
  rows.emplace_back("flat", flat);
  rows.emplace_back("ties", ties);
  const size_t n_rows = rows.size();
  const std::vector<SamplerCase> cases = {
      {"temperature 0.7", {0.7, 1.0, 0, 1.0, 0.0, 21}},
      {"top-p 0.9 and a penalty", {0.8, 1.3, 0, 0.9, 0.0, 22}},
      {"top-k 50", {1.0, 1.0, 50, 1.0, 0.0, 23}},
      {"top-k past the candidates", {1.0, 1.0, 30000, 1.0, 0.0, 24}},
      {"min-p 0.05", {1.2, 1.0, 0, 1.0, 0.05, 25}},
      {"hot", {3.0, 1.0, 0, 0.95, 0.0, 26}},
  };
  for (const SamplerCase& c : cases) {
    // Each row its own job: its own seed (hence draws) and generated ids.
    std::vector<Sampler> host, device;
    for (size_t r = 0; r < n_rows; ++r) {
      SamplerConfig config = c.config;
      config.seed += 100 * r;
      host.emplace_back(config);
      device.emplace_back(config);
    }
    std::vector<std::set<int32_t>> chosen(n_rows);
    for (int step = 0; step < 6; ++step) {
      std::vector<float> logits;  // the rows back to back; the kernel penalizes in place
      std::vector<int32_t> penalized;
      std::vector<engine::cuda::SampleRow> params(n_rows);
      for (size_t r = 0; r < n_rows; ++r) {
        const SampleDraw draw = device[r].NextDraw();
        engine::cuda::SampleRow& p = params[r];
        p.logits_offset = static_cast<int64_t>(logits.size());
        logits.insert(logits.end(), rows[r].second.begin(), rows[r].second.end());
        p.penalized_offset = static_cast<int64_t>(penalized.size());
        p.n_penalized =
            c.config.repetition_penalty != 1.0 ? static_cast<int64_t>(draw.penalized.size()) : 0;
        penalized.insert(penalized.end(), draw.penalized.begin(), draw.penalized.end());
        p.penalty = static_cast<float>(c.config.repetition_penalty);
        p.inv_temperature = static_cast<float>(1.0 / c.config.temperature);
        p.top_k = c.config.top_k;
        p.top_p = c.config.top_p;
        p.min_p = c.config.min_p;
        p.uniform = draw.uniform;
        p.top_logprobs = -1;
      }
      const std::vector<int32_t> out = SampleRowsOnTheEmulator(logits, kVocab, params, penalized);
      for (size_t r = 0; r < n_rows; ++r) {
        const int32_t on_host = host[r].Sample(rows[r].second);
        ASSERT_EQ(out[r], on_host) << rows[r].first << ", " << c.name << ", step " << step;
        device[r].Record(out[r]);
        chosen[r].insert(out[r]);
      }
    }
    for (size_t r = 0; r < n_rows; ++r) {
      if (c.config.top_k != 50 || std::string(rows[r].first) != "peaked") {
        EXPECT_GT(chosen[r].size(), 1u)
            << rows[r].first << ", " << c.name << ": draws exercised nothing";
      }
    }
  }
}

// Log-probabilities come with the device's pick: the same ids as the CPU's
// ComputeLogprobs on the same raw logits (ties to the lower id, NaN never
// listed), values within 1e-5 (the bound; the device sums the same
// double terms in another order, a few ulps of a double, and its exp may be
// an ulp off glibc's), the chosen id's own from its raw logit even when the
// penalty changed the row. Odd vocabularies, a row shorter than top_n, rows
// with NaN, -inf and ties, rows not asking (left untouched) in one launch.
// A row with a NaN logit has a NaN total on both sides: NaN values match.
::testing::AssertionResult Near(float device, float host) {
  if ((std::isnan(device) && std::isnan(host)) || std::fabs(device - host) <= 1e-5f) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << device << " on the device, " << host << " on the CPU";
}

void ExpectLogprobsNear(const TokenLogprobs& device, const TokenLogprobs& host,
                        const std::string& where) {
  EXPECT_EQ(device.chosen.id, host.chosen.id) << where;
  EXPECT_TRUE(Near(device.chosen.logprob, host.chosen.logprob)) << where;
  ASSERT_EQ(device.top.size(), host.top.size()) << where;
  for (size_t k = 0; k < host.top.size(); ++k) {
    EXPECT_EQ(device.top[k].id, host.top[k].id) << where << ", rank " << k;
    EXPECT_TRUE(Near(device.top[k].logprob, host.top[k].logprob)) << where << ", rank " << k;
  }
}

TEST(CudaSampler, KernelReportsLogprobsAsTheCpuComputesThem) {
  std::mt19937 gen(3);
  std::normal_distribution<float> noise(0.0f, 2.0f);
  for (const int64_t vocab : {int64_t{7}, int64_t{4099}, int64_t{40000}}) {
    std::vector<std::pair<std::string, std::vector<float>>> rows;
    std::vector<float> plain(vocab), ties(vocab), odd(vocab);
    for (int64_t i = 0; i < vocab; ++i) {
      plain[i] = noise(gen);
      ties[i] = static_cast<float>(static_cast<int>(noise(gen)));
      odd[i] = i % 11 == 5 ? std::nanf("") : (i % 13 == 2 ? -INFINITY : noise(gen));
    }
    rows.emplace_back("plain", plain);
    rows.emplace_back("ties", ties);
    rows.emplace_back("nan and -inf", odd);
    rows.emplace_back("not asking", plain);
    const size_t n_rows = rows.size();
    for (const int top_n : {0, 1, 5, 20}) {
      for (const double penalty : {1.0, 1.4}) {
        const SamplerConfig config{0.9, penalty, 0, 1.0, 0.0, static_cast<uint64_t>(top_n)};
        std::vector<float> logits;
        std::vector<int32_t> penalized;
        std::vector<engine::cuda::SampleRow> params(n_rows);
        std::vector<engine::cuda::RowLogprobs> lp(n_rows);
        lp.back().n_top = -7;  // a row not asking is left as it was
        for (size_t r = 0; r < n_rows; ++r) {
          engine::cuda::SampleRow& p = params[r];
          p.logits_offset = static_cast<int64_t>(logits.size());
          logits.insert(logits.end(), rows[r].second.begin(), rows[r].second.end());
          p.penalized_offset = static_cast<int64_t>(penalized.size());
          // The penalty falls on the ids the row's pick is likeliest to be.
          for (int64_t id = 0; id < vocab && penalty != 1.0; id += 2) {
            if (rows[r].second[id] > 1.0f) penalized.push_back(static_cast<int32_t>(id));
          }
          p.n_penalized = static_cast<int64_t>(penalized.size()) - p.penalized_offset;
          p.penalty = static_cast<float>(penalty);
          p.inv_temperature = static_cast<float>(1.0 / config.temperature);
          p.top_p = 1.0;
          p.uniform = 0.25 + 0.2 * static_cast<double>(r);
          p.top_logprobs = r + 1 == n_rows ? -1 : top_n;
        }
        const std::vector<int32_t> out =
            SampleRowsOnTheEmulator(logits, vocab, params, penalized, lp.data());
        EXPECT_EQ(lp.back().n_top, -7);
        for (size_t r = 0; r + 1 < n_rows; ++r) {
          const std::string where = rows[r].first + ", vocab " + std::to_string(vocab) + ", top " +
                                    std::to_string(top_n) + ", penalty " + std::to_string(penalty);
          ASSERT_GE(out[r], 0) << where;
          TokenLogprobs device;
          device.chosen = LogprobOf(out[r], lp[r].chosen_logit, lp[r].log_total);
          for (int k = 0; k < lp[r].n_top; ++k) {
            device.top.push_back(LogprobOf(lp[r].top_ids[k], lp[r].top_logits[k], lp[r].log_total));
          }
          ExpectLogprobsNear(device, ComputeLogprobs(rows[r].second, out[r], top_n), where);
        }
      }
    }
  }
}

// Through the engine: a job asking for logprobs samples on the device and its
// entries equal ComputeLogprobs on the logits another engine on the same file
// returns to the host (bit-identical rows), its choices the host sampler's.
TEST(CudaSampler, EngineReportsLogprobsWithThePick) {
  const std::vector<SamplerCase> cases = {
      {"greedy", {0.0, 1.0, 0, 1.0, 0.0, 31}},
      {"sampled with a penalty", {0.8, 1.3, 40, 0.9, 0.0, 32}},
  };
  for (const char* model : {"real/stories260K", "qwen2-tiny.Q4_K_M"}) {
    const Golden golden = LoadGolden(model);
    for (const SamplerCase& c : cases) {
      auto host_side = LoadEmulatedCudaEngine(model);
      auto device_side = LoadEmulatedCudaEngine(model);
      Sampler host(c.config), device(c.config);
      TokenLogprobs reported;
      auto draw = [&] {
        SampleDraw d = device.NextDraw();
        d.top_logprobs = 5;
        d.logprobs = &reported;
        return engine::SampleRequest::From(d);
      };
      std::span<const float> logits = host_side->Prefill(golden.prompt);
      int32_t on_device = device_side->PrefillSample(golden.prompt, draw());
      for (int step = 0; step < 8; ++step) {
        const std::string where =
            std::string(model) + ", " + c.name + ", step " + std::to_string(step);
        std::vector<float> row(logits.begin(), logits.end());
        const TokenLogprobs expected = ComputeLogprobs(row, on_device, 5);
        const int32_t on_host = host.Sample(row);
        ASSERT_EQ(on_device, on_host) << where;
        ExpectLogprobsNear(reported, expected, where);
        device.Record(on_device);
        logits = host_side->Decode(on_host);
        on_device = device_side->DecodeSample(on_host, draw());
      }
    }
  }
}

TEST(CudaSampler, CpuBackendDoesNotClaimDeviceSampling) {
  EXPECT_FALSE(LoadFixtureEngine("real/stories260K")->samples_on_device());
}

}  // namespace
}  // namespace orcd::testing
