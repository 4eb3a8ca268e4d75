// What a step costs, learned from the steps the scheduler ran, so that a
// prompt chunk can be sized to a time (SchedulerOptions::step_time_target):
// while others are generating, the step that carries a prompt is the gap
// between two of their tokens, and on a slow device a full token budget of
// prompt makes that gap seconds long. The model: a step of D generated
// tokens and P prompt tokens takes decode(D) + P * per_prompt_token, each
// term a moving average of what was measured (decode(D) from steps without
// prompt tokens, the per-token price from steps with enough of them).
#ifndef ORCD_HOST_GENERATION_STEP_COST_H_
#define ORCD_HOST_GENERATION_STEP_COST_H_

#include <cstdint>
#include <optional>
#include <vector>

namespace orcd {

class StepCostModel {
 public:
  // A step's prompt tokens below this teach nothing about their price (the
  // step's fixed cost would dominate it).
  static constexpr int64_t kMinPromptSample = 8;

  // One step that took `seconds`.
  void Observe(int64_t prompt_tokens, int64_t decode_tokens, double seconds);

  // The prompt tokens a step with `decode_tokens` generated tokens may take
  // and still last at most `seconds` (0 when those tokens alone take that
  // long); nullopt until a prompt step has been measured.
  std::optional<int64_t> PromptTokensWithin(double seconds, int64_t decode_tokens) const;

  // Seconds a step of `decode_tokens` generated tokens alone takes: the
  // measured average, else scaled from the nearest smaller measured count (a
  // token costs at most its share of a smaller step), else the nearest
  // larger one's, else 0.
  double DecodeSeconds(int64_t decode_tokens) const;

 private:
  double per_prompt_token_ = 0;       // seconds; 0 = unmeasured
  std::vector<double> decode_steps_;  // [D]: seconds; 0 = unmeasured
};

}  // namespace orcd

#endif  // ORCD_HOST_GENERATION_STEP_COST_H_
