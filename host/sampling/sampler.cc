#include "host/sampling/sampler.h"

#include <algorithm>
#include <cmath>

namespace orcd {

Sampler::Sampler(const SamplerConfig& config) : config_(config), rng_(config.seed) {}

void Sampler::Reset(uint64_t seed) {
  rng_.seed(seed);
  history_.clear();
  history_order_.clear();
}

SampleDraw Sampler::NextDraw() {
  SampleDraw d;
  d.config = &config_;
  d.uniform = config_.temperature > 0.0 ? Uniform() : 0.0;
  d.penalized = history_order_;
  return d;
}

void Sampler::Record(int32_t token) {
  if (history_.insert(token).second) history_order_.push_back(token);
}

double Sampler::Uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

int32_t GreedyToken(std::span<const float> logits) {
  // max_element keeps the first of equal maxima: the lowest id.
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

int32_t Sampler::Sample(std::span<float> logits) {
  // Repetition penalty (llama.cpp/CTRL form): shrink positive logits, grow
  // negative ones, so a penalised token always becomes less likely.
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
    // Softmax over the survivors, in place (first = probability from here on).
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
  Record(token);
  return token;
}

}  // namespace orcd
