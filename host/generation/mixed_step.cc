#include "host/generation/mixed_step.h"

#include <algorithm>

namespace orcd {

std::vector<StepTake> ChooseMixedStep(std::span<const StepCandidate> candidates,
                                      int64_t max_batched_tokens, int64_t prompt_batch_tokens,
                                      const std::function<int64_t(size_t, int64_t)>& cut,
                                      const std::function<int64_t(int64_t)>& prompt_beside) {
  std::vector<StepTake> takes;
  int64_t budget = max_batched_tokens;
  int64_t prompt_tokens = 0;
  int64_t prompt_cap = max_batched_tokens;
  enum Kind { kDecoding, kPrompt, kFill };
  const auto kind = [](const StepCandidate& c) {
    return c.left == 1 ? kDecoding : c.fill ? kFill : kPrompt;
  };
  for (const Kind pass : {kDecoding, kPrompt, kFill}) {
    if (pass == kPrompt && !takes.empty() && prompt_beside) {
      prompt_cap = std::max<int64_t>(prompt_beside(max_batched_tokens - budget), 0);
    }
    if (pass == kFill) {  // only a step nobody else's tokens are in, a short one
      if (!takes.empty()) return takes;
      budget = std::min(budget, prompt_batch_tokens);
    }
    for (size_t i = 0; i < candidates.size(); ++i) {
      const StepCandidate& c = candidates[i];
      if (!c.asked || c.left < 1 || budget == 0 || kind(c) != pass) continue;
      const bool decoding = pass == kDecoding;
      if (!decoding && prompt_tokens >= prompt_batch_tokens) return takes;
      const int64_t room = decoding ? budget : std::min(budget, prompt_cap - prompt_tokens);
      if (room < 1) return takes;
      const int64_t n = cut(i, std::min(c.left, room));
      if (n < 1) continue;
      budget -= n;
      if (!decoding) prompt_tokens += n;
      takes.push_back({i, n});
    }
  }
  return takes;
}

}  // namespace orcd
