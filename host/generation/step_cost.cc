#include "host/generation/step_cost.h"

#include <algorithm>
#include <cmath>

namespace orcd {
namespace {

// Each step moves an average a quarter of the way to what it measured: a
// few steps follow a change (a longer context, another process on the
// cores), one slow step does not.
constexpr double kWeight = 0.25;

void Average(double& average, double sample) {
  average = average == 0 ? sample : average + kWeight * (sample - average);
}

}  // namespace

void StepCostModel::Observe(int64_t prompt_tokens, int64_t decode_tokens, double seconds) {
  if (!(seconds > 0) || prompt_tokens < 0 || decode_tokens < 0) return;
  if (prompt_tokens == 0) {
    if (decode_tokens == 0) return;
    const auto d = static_cast<size_t>(decode_tokens);
    if (decode_steps_.size() <= d) decode_steps_.resize(d + 1, 0.0);
    Average(decode_steps_[d], seconds);
    return;
  }
  if (prompt_tokens < kMinPromptSample) return;
  const double prompt_seconds = std::max(seconds - DecodeSeconds(decode_tokens), 0.0);
  // A step whose generated tokens took all of it (its prompt tokens free)
  // says nothing about their price.
  if (prompt_seconds > 0) Average(per_prompt_token_, prompt_seconds / prompt_tokens);
}

double StepCostModel::DecodeSeconds(int64_t decode_tokens) const {
  if (decode_tokens <= 0) return 0;
  const auto d = static_cast<size_t>(decode_tokens);
  for (size_t k = std::min(d, decode_steps_.empty() ? 0 : decode_steps_.size() - 1); k > 0; --k) {
    if (decode_steps_[k] > 0) return decode_steps_[k] * static_cast<double>(d) / k;
  }
  for (size_t k = d + 1; k < decode_steps_.size(); ++k) {
    if (decode_steps_[k] > 0) return decode_steps_[k];
  }
  return 0;
}

std::optional<int64_t> StepCostModel::PromptTokensWithin(double seconds,
                                                         int64_t decode_tokens) const {
  if (per_prompt_token_ == 0) return std::nullopt;
  const double left = seconds - DecodeSeconds(decode_tokens);
  if (!(left > 0)) return 0;
  const double tokens = std::floor(left / per_prompt_token_);
  return tokens >= 1e12 ? int64_t{1'000'000'000'000} : static_cast<int64_t>(tokens);
}

}  // namespace orcd
