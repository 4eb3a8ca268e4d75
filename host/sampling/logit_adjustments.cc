#include "host/sampling/logit_adjustments.h"

namespace orcd {

std::span<const float> LogitAdjuster::Apply(std::span<const float> logits) {
  if (!active()) return logits;
  adjusted_.assign(logits.begin(), logits.end());
  for (const auto& [id, count] : counts_) {
    if (id < 0 || static_cast<size_t>(id) >= adjusted_.size()) continue;
    adjusted_[static_cast<size_t>(id)] -=
        static_cast<float>(config_.presence_penalty + config_.frequency_penalty * count);
  }
  for (const auto& [id, bias] : config_.logit_bias) {
    if (id >= 0 && static_cast<size_t>(id) < adjusted_.size())
      adjusted_[static_cast<size_t>(id)] += bias;
  }
  return adjusted_;
}

}  // namespace orcd
