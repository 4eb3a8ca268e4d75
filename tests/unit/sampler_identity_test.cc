// The O(vocabulary) sampler against the algorithm it replaced, kept here as
// ReferenceSortingSampler: token for token, over random logits (Gaussian,
// LLM-shaped, flat, quantized into ties, all equal, with -inf), seeds and
// every parameter the API allows, on both of the sampler's paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "host/sampling/sampler.h"

namespace orcd {
namespace {

// host/sampling/sampler.cc's Sample as of 94043a3, before sampling became
// O(vocabulary): it sorts the whole vocabulary by (logit desc, id asc) and
// sums in that order. Verbatim but for the class name; edits the logits.
class ReferenceSortingSampler {
 public:
  explicit ReferenceSortingSampler(const SamplerConfig& config)
      : config_(config), rng_(config.seed) {}

  int32_t Sample(std::span<float> logits) {
    if (config_.repetition_penalty != 1.0) {
      const float p = static_cast<float>(config_.repetition_penalty);
      for (int32_t id : history_) {
        float& l = logits[static_cast<size_t>(id)];
        l = l > 0 ? l / p : l * p;
      }
    }
    int32_t token;
    if (config_.temperature <= 0.0) {
      token = GreedyToken(logits);
    } else {
      const float inv_t = static_cast<float>(1.0 / config_.temperature);
      candidates_.clear();
      candidates_.reserve(logits.size());
      for (size_t i = 0; i < logits.size(); ++i) {
        candidates_.emplace_back(logits[i] * inv_t, static_cast<int32_t>(i));
      }
      auto by_logit = [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
      };
      size_t n = candidates_.size();
      if (config_.top_k > 0 && static_cast<size_t>(config_.top_k) < n) {
        n = static_cast<size_t>(config_.top_k);
        std::partial_sort(candidates_.begin(), candidates_.begin() + static_cast<std::ptrdiff_t>(n),
                          candidates_.end(), by_logit);
      } else {
        std::sort(candidates_.begin(), candidates_.end(), by_logit);
      }
      const float max_logit = candidates_[0].first;
      double sum = 0;
      for (size_t i = 0; i < n; ++i) {
        candidates_[i].first = std::exp(candidates_[i].first - max_logit);
        sum += candidates_[i].first;
      }
      for (size_t i = 0; i < n; ++i)
        candidates_[i].first = static_cast<float>(candidates_[i].first / sum);
      if (config_.top_p < 1.0) {
        double cumulative = 0;
        size_t keep = 0;
        while (keep < n) {
          cumulative += candidates_[keep++].first;
          if (cumulative >= config_.top_p) break;
        }
        n = std::max<size_t>(keep, 1);
      }
      if (config_.min_p > 0.0) {
        const double floor = config_.min_p * candidates_[0].first;
        size_t keep = 1;
        while (keep < n && candidates_[keep].first >= floor) ++keep;
        n = keep;
      }
      double total = 0;
      for (size_t i = 0; i < n; ++i) total += candidates_[i].first;
      const double r = Uniform() * total;
      double acc = 0;
      token = candidates_[n - 1].second;
      for (size_t i = 0; i < n; ++i) {
        acc += candidates_[i].first;
        if (r < acc) {
          token = candidates_[i].second;
          break;
        }
      }
    }
    if (history_.insert(token).second) history_order_.push_back(token);
    return token;
  }

 private:
  double Uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

  SamplerConfig config_;
  std::mt19937_64 rng_;
  std::unordered_set<int32_t> history_;
  std::vector<int32_t> history_order_;
  std::vector<std::pair<float, int32_t>> candidates_;
};

enum class Shape { kGaussian, kLlm, kFlat, kQuantized, kAllEqual, kTwoLevels, kMasked, kPeaked };
constexpr Shape kShapes[] = {Shape::kGaussian, Shape::kLlm,       Shape::kFlat,   Shape::kQuantized,
                             Shape::kAllEqual, Shape::kTwoLevels, Shape::kMasked, Shape::kPeaked};

std::vector<float> MakeLogits(Shape shape, size_t vocab, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<size_t> any(0, vocab - 1);
  std::vector<float> l(vocab);
  const float scale = std::uniform_real_distribution<float>(0.5f, 4.0f)(rng);
  for (float& x : l) x = normal(rng) * scale;
  switch (shape) {
    case Shape::kGaussian:
      break;
    case Shape::kLlm:  // a bulk far below a few likely tokens
      for (int k = 0; k < 12; ++k) l[any(rng)] = 10.0f + 8.0f * std::abs(normal(rng));
      break;
    case Shape::kFlat:  // random-weight models: std ~0.3
      for (float& x : l) x *= 0.3f / scale;
      break;
    case Shape::kQuantized:  // many exact ties
      for (float& x : l) x = std::round(x * 2.0f) / 2.0f;
      break;
    case Shape::kAllEqual:
      std::fill(l.begin(), l.end(), 1.25f);
      break;
    case Shape::kTwoLevels:
      for (float& x : l) x = x > 0 ? 0.0f : -3.0f;
      break;
    case Shape::kMasked:
      for (float& x : l)
        if (x < 0) x = -std::numeric_limits<float>::infinity();
      l[any(rng)] = 1.0f;  // at least one finite
      break;
    case Shape::kPeaked:
      l[any(rng)] = 60.0f;
      break;
  }
  return l;
}

SamplerConfig RandomConfig(size_t vocab, std::mt19937_64& rng) {
  auto pick = [&](auto options) {
    return options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)];
  };
  const auto v = static_cast<int64_t>(vocab);
  SamplerConfig c;
  c.temperature = pick(std::vector<double>{1.0, 1.0, 0.05, 0.3, 0.7, 1.3, 2.0});
  c.repetition_penalty = pick(std::vector<double>{1.0, 1.0, 0.7, 1.2, 2.0});
  c.top_k = pick(std::vector<int64_t>{0, 0, 0, 1, 2, 40, 300, 5000, v - 1, v, v + 5});
  c.top_p = pick(std::vector<double>{1.0, 1.0, 0.9, 0.95, 0.5, 1e-9, 0.0, 0.999999});
  c.min_p = pick(std::vector<double>{0.0, 0.0, 0.05, 0.5, 1.0, 1e-7});
  c.seed = rng();
  return c;
}

std::string Describe(const SamplerConfig& c, Shape shape, size_t vocab) {
  return "shape " + std::to_string(static_cast<int>(shape)) + " vocab " + std::to_string(vocab) +
         " T " + std::to_string(c.temperature) + " penalty " +
         std::to_string(c.repetition_penalty) + " top_k " + std::to_string(c.top_k) + " top_p " +
         std::to_string(c.top_p) + " min_p " + std::to_string(c.min_p) + " seed " +
         std::to_string(c.seed);
}

// Runs both samplers for `steps` tokens on fresh logits each step (the
// penalty history grows); returns the new sampler's stats.
SamplerStats ExpectSameTokens(const SamplerConfig& config, Shape shape, size_t vocab, int steps,
                              std::mt19937_64& rng, bool exact_only) {
  ReferenceSortingSampler reference(config);
  Sampler sampler(config);
  sampler.set_exact_only(exact_only);
  for (int step = 0; step < steps; ++step) {
    const std::vector<float> logits = MakeLogits(shape, vocab, rng);
    std::vector<float> copy = logits;
    const int32_t want = reference.Sample(copy);
    const int32_t got = sampler.Sample(logits);
    EXPECT_EQ(got, want) << Describe(config, shape, vocab) << " step " << step;
    if (got != want) break;
  }
  return sampler.stats();
}

TEST(SamplerIdentity, RandomLogitsSeedsAndParameters) {
  std::mt19937_64 rng(20261124);
  const size_t vocabs[] = {1, 2, 3, 7, 64, 65, 100, 513, 4096, 5000, 20000};
  SamplerStats all;
  for (int round = 0; round < 1200; ++round) {
    const size_t vocab = vocabs[static_cast<size_t>(round) % std::size(vocabs)];
    const Shape shape = kShapes[static_cast<size_t>(round / 11) % std::size(kShapes)];
    const SamplerStats s = ExpectSameTokens(RandomConfig(vocab, rng), shape, vocab, 4, rng, false);
    all.fast += s.fast;
    all.exact += s.exact;
  }
  // The test means little if the fast path never decides.
  EXPECT_GT(all.fast, 3 * all.exact) << all.fast << " fast, " << all.exact << " exact";
}

TEST(SamplerIdentity, ApiDefaultsOnLlmShapedLogits) {
  // Temperature 1, top-k 0, top-p 1, min-p 0: the whole vocabulary is kept.
  std::mt19937_64 rng(7);
  SamplerStats all;
  for (int round = 0; round < 60; ++round) {
    SamplerConfig c;
    c.seed = rng();
    const SamplerStats s =
        ExpectSameTokens(c, round % 2 ? Shape::kLlm : Shape::kGaussian, 20000, 8, rng, false);
    all.fast += s.fast;
    all.exact += s.exact;
  }
  EXPECT_GT(all.fast, 10 * all.exact) << all.fast << " fast, " << all.exact << " exact";
}

TEST(SamplerIdentity, DrawsDeepInFlatDistributions) {
  // Random-weight models' flat rows, or temperature 2: the draw and top-p's
  // cut land past the sorted head, each in a band of ranks found by bisection.
  std::mt19937_64 rng(13);
  SamplerStats all;
  for (int round = 0; round < 40; ++round) {
    SamplerConfig c;
    c.temperature = round % 2 ? 2.0 : 1.0;
    c.min_p = round % 5 == 0 ? 0.2 : 0.0;
    c.top_p = round % 3 == 0 ? 0.9 : round % 3 == 1 ? 0.5 : 1.0;  // cuts deep in the tail
    c.seed = rng();
    const SamplerStats s =
        ExpectSameTokens(c, round % 4 < 2 ? Shape::kFlat : Shape::kGaussian, 30000, 6, rng, false);
    all.fast += s.fast;
    all.deep += s.deep;
    all.exact += s.exact;
  }
  EXPECT_GT(all.deep, 100) << all.fast << " fast, " << all.deep << " deep, " << all.exact;
  EXPECT_GT(all.fast, 10 * all.exact) << all.fast << " fast, " << all.exact << " exact";
}

TEST(SamplerIdentity, ExactPathAlone) {
  std::mt19937_64 rng(11);
  const size_t vocabs[] = {1, 2, 5, 64, 300, 4097, 9000};
  for (int round = 0; round < 300; ++round) {
    const size_t vocab = vocabs[static_cast<size_t>(round) % std::size(vocabs)];
    const Shape shape = kShapes[static_cast<size_t>(round / 7) % std::size(kShapes)];
    const SamplerStats s = ExpectSameTokens(RandomConfig(vocab, rng), shape, vocab, 3, rng, true);
    EXPECT_EQ(s.fast, 0);
  }
}

TEST(SamplerIdentity, QwenVocabulary) {
  std::mt19937_64 rng(151936);
  for (int round = 0; round < 6; ++round) {
    SamplerConfig c = RandomConfig(151936, rng);
    if (round < 3) c = SamplerConfig{.seed = rng()};  // the API's defaults
    ExpectSameTokens(c, round % 2 ? Shape::kLlm : Shape::kGaussian, 151936, 3, rng, false);
  }
}

TEST(SamplerIdentity, SumsNearPowersOfTwo) {
  // 2^k equal top logits make the softmax sum land on or just past a power
  // of two, where the bounds must allow for a crossing.
  std::mt19937_64 rng(3);
  for (int k = 0; k < 12; ++k) {
    for (int round = 0; round < 8; ++round) {
      const size_t vocab = 6000;
      SamplerConfig c;
      c.seed = rng();
      ReferenceSortingSampler reference(c);
      Sampler sampler(c);
      std::vector<float> l(vocab, -30.0f + static_cast<float>(round));
      for (size_t i = 0; i < (size_t{1} << k); ++i) l[(i * 7919) % vocab] = 0.0f;
      std::vector<float> copy = l;
      EXPECT_EQ(sampler.Sample(l), reference.Sample(copy)) << "k " << k << " round " << round;
    }
  }
}

TEST(SamplerIdentity, LogitsAreLeftAsTheyAre) {
  SamplerConfig c;
  c.repetition_penalty = 1.5;
  c.temperature = 0.8;
  Sampler sampler(c);
  std::mt19937_64 rng(5);
  const std::vector<float> logits = MakeLogits(Shape::kLlm, 1000, rng);
  const std::vector<float> before = logits;
  for (int i = 0; i < 5; ++i) sampler.Sample(logits);
  EXPECT_EQ(logits, before);
}

TEST(SamplerIdentity, TinyTemperaturesAreGreedy) {
  std::mt19937_64 rng(9);
  for (double t : {1e-300, 1e-60, 1e-39}) {
    for (double penalty : {1.0, 1.5}) {
      SamplerConfig c;
      c.temperature = t;
      c.repetition_penalty = penalty;
      SamplerConfig greedy = c;
      greedy.temperature = 0.0;
      Sampler tiny(c), reference(greedy);
      for (int step = 0; step < 6; ++step) {
        const std::vector<float> logits = MakeLogits(Shape::kLlm, 3000, rng);
        EXPECT_EQ(tiny.Sample(logits), reference.Sample(logits)) << t << " step " << step;
      }
    }
  }
}

TEST(SamplerIdentity, NanLogitsAreGreedyAndNeverCrash) {
  SamplerConfig c;
  c.seed = 1;
  Sampler sampler(c);
  std::vector<float> logits(500, 0.5f);
  logits[17] = std::numeric_limits<float>::quiet_NaN();
  logits[42] = 3.0f;
  EXPECT_EQ(sampler.Sample(logits), 42);
}

}  // namespace
}  // namespace orcd
