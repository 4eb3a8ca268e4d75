// Token sampling in the seed spec's order (M0-W-1421): temperature,
// repetition penalty, top-k, top-p, min-p, then a draw from a seeded
// mt19937_64. Temperature 0 is greedy (ties go to the lowest id). The same
// seed and logits give the same tokens on every run.
//
// The specification sorts the vocabulary by logit (ties by id) and sums in
// that order; Sample gives its tokens bit for bit in O(vocabulary): it sorts
// only the top ranks (64, grown to 4096 when a cut needs more), bounds the
// ordered sums without the order (host/sampling/ordered_sum.h), finds a draw
// deep in the tail in a band of ranks around it, and goes on only where every
// sum within the bounds gives the same token. Otherwise (a draw within ~1e-11
// of a boundary, top-k or a top-p cut past 4096 ranks, thousands of ties at
// the head's edge) it takes the exact path: the whole vocabulary ranked by a
// radix sort, then the specification's steps. A temperature so small that
// the scaled logits overflow (1 / temperature past FLT_MAX) samples greedily,
// as do NaN logits.
#ifndef ORCD_HOST_SAMPLING_SAMPLER_H_
#define ORCD_HOST_SAMPLING_SAMPLER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <unordered_set>
#include <utility>
#include <vector>

#include "host/sampling/logit_adjustments.h"
#include "host/sampling/ordered_sum.h"
#include "host/sampling/token_logprobs.h"

namespace orcd {

struct SamplerConfig {
  double temperature = 1.0;
  double repetition_penalty = 1.0;  // applied to tokens generated so far
  int64_t top_k = 0;                // 0 = off
  double top_p = 1.0;               // 1 = off
  double min_p = 0.0;               // 0 = off
  uint64_t seed = 0;
  // OpenAI's logit_bias and presence/frequency penalties, applied to the
  // logits first (logit_adjustments.h). Not on the device's sampler: a job
  // with them samples on the host.
  LogitAdjustmentConfig adjustments;
};

// What a sampler running elsewhere (on the device) needs for one token: the
// configuration, the uniform draw Sample would make, the distinct tokens the
// repetition penalty applies to; and, when the job asks for log-probabilities
// (top_logprobs >= 0), where the device puts the chosen token's and its
// top_logprobs most probable alternatives' (ComputeLogprobs' values); and,
// for structured output, the tokens the pick may be (bits by id; empty: any):
// the others are set to -inf after the log-probabilities, before anything
// else, as the host masks a row (TokenConstraint::Mask).
struct SampleDraw {
  const SamplerConfig* config = nullptr;
  double uniform = 0.0;
  std::span<const int32_t> penalized;
  int top_logprobs = -1;
  TokenLogprobs* logprobs = nullptr;
  std::span<const uint64_t> allowed;
  // Or the bits computed while the step is evaluated, for a source that
  // overlaps them (LogitSource::OverlapsMasks): it calls this once, on the
  // job's thread, after the step was handed over; the span lives until the
  // pick returns.
  std::function<std::span<const uint64_t>()> allowed_later;
};

// How the sampled (temperature > 0) tokens were chosen.
struct SamplerStats {
  int64_t fast = 0;   // from the top ranks and the bounded sums
  int64_t deep = 0;   // of those, drawn in a band of ranks past the top
  int64_t exact = 0;  // from the whole vocabulary in rank order
};

// The greedy choice: the index of the largest logit, ties to the lowest id.
int32_t GreedyToken(std::span<const float> logits);

class Sampler {
 public:
  explicit Sampler(const SamplerConfig& config);

  // Picks the next token from `logits` (left as they are) and records it in
  // the history the repetition penalty reads.
  int32_t Sample(std::span<const float> logits);
  // Structured output: picks as Sample does and, when `allows` refuses the
  // pick, picks again from `masked()` (the logits with every refused token at
  // -inf), a second draw. Greedy, the result is the allowed argmax either
  // way; sampling, the filters act on the whole distribution first
  // (llama.cpp's grammar order), and a refusal costs one masked pick.
  int32_t SampleAllowed(std::span<const float> logits, const std::function<bool(int32_t)>& allows,
                        const std::function<std::span<const float>()>& masked);
  // Forgets the history (a new job).
  void Reset(uint64_t seed);

  // For sampling elsewhere, in Sample's order: NextDraw consumes the uniform
  // Sample would (one when temperature > 0), Record adds the chosen token to
  // the history afterwards.
  SampleDraw NextDraw();
  void Record(int32_t token);

  const SamplerStats& stats() const { return stats_; }
  // Every sampled token from the exact path (tests and benchmarks compare).
  void set_exact_only(bool exact_only) { exact_only_ = exact_only; }

 private:
  // A uniform double in [0, 1) from 53 random bits (same on every platform).
  double Uniform();

  int32_t Choose(std::span<const float> logits);
  // Greedy over the penalised logits.
  int32_t Greedy(std::span<const float> logits);
  // Sets scaled_[id] for each penalised id from the caller's logits.
  void PenalizeInto(std::span<const float> logits, float inv_t, bool scale);
  // The token from the sorted top ranks, or nullopt (take the exact path).
  std::optional<int32_t> FastChoose(float max, size_t survivors, double uniform);
  // The specification's steps over the whole vocabulary in rank order.
  int32_t ExactChoose(size_t survivors, double uniform);
  // head_ = the top ranks (at least `target`) in order, head_e_ their exp;
  // returns the threshold they are >= of, or nullopt (too many ties).
  std::optional<float> TakeHead(size_t target, float max);
  // Steps 3-5 for a kept prefix inside the head.
  int32_t PickInHead(size_t kept, double uniform) const;
  // A rank past the head, found in a band of ranks around it: the first
  // whose running sum passes r (> r for a draw, >= for top-p's cut, `reach`)
  // for every r in [r_lo, r_hi]; `acc` is the exact running sum over the
  // whole head (all kept), `floor` min-p's.
  struct Target {
    double acc;
    double r_lo, r_hi;
    double floor;
    bool reach;
  };
  struct Found {
    int32_t id;
    float p;
    double acc_lo, acc_hi;  // bounds on the running sum through it
  };
  std::optional<Found> DeepRank(const Target& target, float max, float head_threshold,
                                sampling::SumBounds sum);
  // Bounds on the total of the kept probabilities (p >= floor) when they run
  // past the head: ranks [0, first) in order, the tail bounded.
  sampling::SumBounds KeptTotal(size_t first, sampling::SumBounds sum, double floor) const;

  SamplerConfig config_;
  LogitAdjuster adjuster_;
  std::mt19937_64 rng_;
  std::unordered_set<int32_t> history_;
  std::vector<int32_t> history_order_;  // the same ids, in first-use order
  SamplerStats stats_;
  bool exact_only_ = false;

  // Reused between tokens: no per-token allocation once grown.
  std::vector<float> scaled_;  // penalised logits / temperature
  std::vector<float> tail_e_;  // exp of the ranks past the first head (0 for the head)
  std::vector<int32_t> head_ids_;
  std::vector<std::pair<float, int32_t>> head_;  // (scaled logit, id) in rank order
  std::vector<float> head_e_, head_p_;
  std::vector<std::pair<float, int32_t>> ranked_;  // the exact path's whole order
  std::vector<std::pair<float, float>> sample_;    // (scaled logit, exp): DeepRank's guess
  std::vector<int32_t> band_ids_;
  std::vector<std::pair<float, int32_t>> band_;  // DeepRank's band in rank order
  std::vector<uint64_t> radix_scratch_;
};

}  // namespace orcd

#endif  // ORCD_HOST_SAMPLING_SAMPLER_H_
