// OpenAI's additive logit adjustments, applied to a copy of the model's
// logits before the sampler's own steps (temperature, repetition penalty,
// top-k/top-p/min-p): logit_bias (a fixed amount per token id) and the
// presence and frequency penalties over the tokens generated so far:
//   logit[t] - presence * (count[t] > 0) - frequency * count[t] + bias[t]
// (OpenAI's definition; distinct from the multiplicative repetition penalty).
#ifndef ORCD_HOST_SAMPLING_LOGIT_ADJUSTMENTS_H_
#define ORCD_HOST_SAMPLING_LOGIT_ADJUSTMENTS_H_

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace orcd {

struct LogitAdjustmentConfig {
  double presence_penalty = 0.0;                      // -2 .. 2; 0 = off
  double frequency_penalty = 0.0;                     // -2 .. 2; 0 = off
  std::vector<std::pair<int32_t, float>> logit_bias;  // (token id, -100 .. 100)
  bool active() const {
    return presence_penalty != 0.0 || frequency_penalty != 0.0 || !logit_bias.empty();
  }
};

class LogitAdjuster {
 public:
  explicit LogitAdjuster(LogitAdjustmentConfig config) : config_(std::move(config)) {}

  bool active() const { return config_.active(); }
  // The adjusted copy of `logits` (valid until the next call); `logits`
  // itself when nothing is configured. Ids outside the vocabulary are
  // ignored.
  std::span<const float> Apply(std::span<const float> logits);
  void Record(int32_t token) { ++counts_[token]; }
  void Reset() { counts_.clear(); }

 private:
  LogitAdjustmentConfig config_;
  std::unordered_map<int32_t, int64_t> counts_;  // generated tokens so far
  std::vector<float> adjusted_;                  // reused: no allocation per token
};

}  // namespace orcd

#endif  // ORCD_HOST_SAMPLING_LOGIT_ADJUSTMENTS_H_
