// Log-probabilities of a token and of the most probable alternatives, from
// the model's own distribution: log-softmax of the raw logits, before the
// request's temperature, penalties, bias and filters (as OpenAI's and
// llama-server's logprobs). Sums in double; ties rank the lower id first.
#ifndef ORCD_HOST_SAMPLING_TOKEN_LOGPROBS_H_
#define ORCD_HOST_SAMPLING_TOKEN_LOGPROBS_H_

#include <cstdint>
#include <span>
#include <vector>

namespace orcd {

struct TokenLogprob {
  int32_t id = -1;
  float logprob = 0.0f;
};

struct TokenLogprobs {
  TokenLogprob chosen;
  std::vector<TokenLogprob> top;  // most probable first, at most the number asked
};

// The most top_logprobs can ask for (OpenAI's limit).
inline constexpr int kMaxTopLogprobs = 20;

// `chosen` must be an index of `logits`; `top_n` in [0, kMaxTopLogprobs].
TokenLogprobs ComputeLogprobs(std::span<const float> logits, int32_t chosen, int top_n);

// One token's entry from its raw logit and the row's log_total (the log of
// the sum of exp(logit) over the row, as ComputeLogprobs computes it): what a
// device that reduced the row itself hands back.
inline TokenLogprob LogprobOf(int32_t id, float logit, double log_total) {
  return {id, static_cast<float>(static_cast<double>(logit) - log_total)};
}

}  // namespace orcd

#endif  // ORCD_HOST_SAMPLING_TOKEN_LOGPROBS_H_
