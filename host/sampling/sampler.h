// Token sampling in the seed spec's order (M0-W-1421): temperature,
// repetition penalty, top-k, top-p, min-p, then a draw from a seeded
// mt19937_64. Temperature 0 is greedy (ties go to the lowest id). The same
// seed and logits give the same tokens on every run and platform.
#ifndef ORCD_HOST_SAMPLING_SAMPLER_H_
#define ORCD_HOST_SAMPLING_SAMPLER_H_

#include <cstdint>
#include <random>
#include <span>
#include <unordered_set>
#include <utility>
#include <vector>

namespace orcd {

struct SamplerConfig {
  double temperature = 1.0;
  double repetition_penalty = 1.0;  // applied to tokens generated so far
  int64_t top_k = 0;                // 0 = off
  double top_p = 1.0;               // 1 = off
  double min_p = 0.0;               // 0 = off
  uint64_t seed = 0;
};

// What a sampler running elsewhere (on the device) needs for one token: the
// configuration, the uniform draw Sample would make, the distinct tokens the
// repetition penalty applies to.
struct SampleDraw {
  const SamplerConfig* config = nullptr;
  double uniform = 0.0;
  std::span<const int32_t> penalized;
};

// The greedy choice: the index of the largest logit, ties to the lowest id.
int32_t GreedyToken(std::span<const float> logits);

class Sampler {
 public:
  explicit Sampler(const SamplerConfig& config);

  // Picks the next token from `logits` (modified in place) and records it in
  // the history the repetition penalty reads.
  int32_t Sample(std::span<float> logits);
  // Forgets the history (a new job).
  void Reset(uint64_t seed);

  // For sampling elsewhere, in Sample's order: NextDraw consumes the uniform
  // Sample would (one when temperature > 0), Record adds the chosen token to
  // the history afterwards.
  SampleDraw NextDraw();
  void Record(int32_t token);

 private:
  // A uniform double in [0, 1) from 53 random bits (same on every platform).
  double Uniform();

  SamplerConfig config_;
  std::mt19937_64 rng_;
  std::unordered_set<int32_t> history_;
  std::vector<int32_t> history_order_;                 // the same ids, in first-use order
  std::vector<std::pair<float, int32_t>> candidates_;  // reused: no per-token allocation
};

}  // namespace orcd

#endif  // ORCD_HOST_SAMPLING_SAMPLER_H_
