#include "host/sampling/token_logprobs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace orcd {

TokenLogprobs ComputeLogprobs(std::span<const float> logits, int32_t chosen, int top_n) {
  float max = -std::numeric_limits<float>::infinity();
  for (const float l : logits) max = std::max(max, l);  // NaN never wins a comparison
  double sum = 0.0;
  for (const float l : logits) sum += std::exp(static_cast<double>(l) - max);
  const double log_total = static_cast<double>(max) + std::log(sum);
  const auto entry = [&](int32_t id) {
    return LogprobOf(id, logits[static_cast<size_t>(id)], log_total);
  };

  TokenLogprobs out;
  out.chosen = entry(chosen);
  // The top_n largest in one pass: a small list kept in rank order; an id
  // equal to the smallest kept does not displace it (lower ids first).
  top_n = std::clamp(top_n, 0, kMaxTopLogprobs);
  std::vector<std::pair<float, int32_t>> best;
  best.reserve(static_cast<size_t>(top_n) + 1);
  for (size_t i = 0; i < logits.size() && top_n > 0; ++i) {
    const float l = logits[i];
    if (std::isnan(l)) continue;
    if (static_cast<int>(best.size()) == top_n && !(l > best.back().first)) continue;
    const auto at = std::upper_bound(best.begin(), best.end(), l,
                                     [](float v, const auto& e) { return v > e.first; });
    best.insert(at, {l, static_cast<int32_t>(i)});
    if (static_cast<int>(best.size()) > top_n) best.pop_back();
  }
  for (const auto& [l, id] : best) out.top.push_back(entry(id));
  return out;
}

}  // namespace orcd
