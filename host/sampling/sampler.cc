#include "host/sampling/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "host/sampling/ordered_sum.h"
#include "host/sampling/rank_order.h"
#include "host/sampling/sampler_kernels.h"

namespace orcd {
namespace {

// The head of ranks sorted for the decisions: 64, then 512, then 4096 ranks;
// a decision past those takes the exact path.
constexpr size_t kFirstHead = 64;
constexpr size_t kHeadGrowth = 8;
constexpr size_t kMaxHead = 4096;
// More ids than this tied at the head's threshold: the exact path.
constexpr size_t kMaxHeadWithTies = 4 * kMaxHead;
// A draw or top-p cut past a head this large is found in a band of ranks
// (DeepRank) of at most kBand ranks (more only where ties make them).
constexpr size_t kDeepHead = 512;
constexpr int64_t kBand = 2048;
constexpr int64_t kMaxBandWithTies = 4 * kMaxHead;

}  // namespace

Sampler::Sampler(const SamplerConfig& config)
    : config_(config), adjuster_(config.adjustments), rng_(config.seed) {}

void Sampler::Reset(uint64_t seed) {
  rng_.seed(seed);
  history_.clear();
  history_order_.clear();
  adjuster_.Reset();
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
  adjuster_.Record(token);
}

double Sampler::Uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

int32_t GreedyToken(std::span<const float> logits) {
  // max_element keeps the first of equal maxima: the lowest id.
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

int32_t Sampler::Sample(std::span<const float> logits) {
  const int32_t token = Choose(adjuster_.Apply(logits));
  Record(token);
  return token;
}

int32_t Sampler::SampleAllowed(std::span<const float> logits,
                               const std::function<bool(int32_t)>& allows,
                               const std::function<std::span<const float>()>& masked) {
  int32_t token = Choose(adjuster_.Apply(logits));
  if (!allows(token)) token = Choose(adjuster_.Apply(masked()));
  Record(token);
  return token;
}

void Sampler::PenalizeInto(std::span<const float> logits, float inv_t, bool scale) {
  // Repetition penalty (llama.cpp/CTRL form): shrink positive logits, grow
  // negative ones, so a penalised token always becomes less likely.
  const auto p = static_cast<float>(config_.repetition_penalty);
  for (int32_t id : history_order_) {
    const auto i = static_cast<size_t>(id);
    if (i >= logits.size()) continue;
    const float l = logits[i] > 0 ? logits[i] / p : logits[i] * p;
    scaled_[i] = scale ? l * inv_t : l;
  }
}

int32_t Sampler::Greedy(std::span<const float> logits) {
  if (config_.repetition_penalty == 1.0) return GreedyToken(logits);
  scaled_.assign(logits.begin(), logits.end());
  PenalizeInto(logits, 1.0f, /*scale=*/false);
  return GreedyToken(scaled_);
}

int32_t Sampler::Choose(std::span<const float> logits) {
  if (config_.temperature <= 0.0) return Greedy(logits);
  // This token's one draw, taken first: however the token is chosen, the
  // generator moves on as the specification's does.
  const double uniform = Uniform();
  const auto inv_t = static_cast<float>(1.0 / config_.temperature);
  if (!std::isfinite(inv_t)) return Greedy(logits);  // the limit of temperature -> 0
  const size_t vocab = logits.size();
  scaled_.resize(vocab);
  float max = sampling::ScaleInto(logits, inv_t, scaled_.data());
  if (config_.repetition_penalty != 1.0) {
    PenalizeInto(logits, inv_t, /*scale=*/true);
    max = sampling::MaxOf(scaled_);
  }
  // Scaled logits past FLT_MAX (a tiny temperature), or NaN: no softmax.
  if (!std::isfinite(max)) return Greedy(logits);
  const size_t survivors = config_.top_k > 0 && static_cast<uint64_t>(config_.top_k) < vocab
                               ? static_cast<size_t>(config_.top_k)
                               : vocab;
  if (!exact_only_) {
    if (const std::optional<int32_t> token = FastChoose(max, survivors, uniform)) {
      ++stats_.fast;
      return *token;
    }
  }
  ++stats_.exact;
  return ExactChoose(survivors, uniform);
}

std::optional<float> Sampler::TakeHead(size_t target, float max) {
  const std::optional<float> threshold =
      sampling::SelectTop(scaled_, target, kMaxHeadWithTies, head_ids_);
  if (!threshold) return std::nullopt;
  head_.clear();
  for (int32_t id : head_ids_) head_.emplace_back(scaled_[static_cast<size_t>(id)], id);
  std::sort(head_.begin(), head_.end(), sampling::RankBefore);
  head_e_.resize(head_.size());
  for (size_t j = 0; j < head_.size(); ++j) head_e_[j] = std::exp(head_[j].first - max);
  return threshold;
}

int32_t Sampler::PickInHead(size_t kept, double uniform) const {
  double total = 0;
  for (size_t i = 0; i < kept; ++i) total += head_p_[i];
  const double r = uniform * total;
  double acc = 0;
  for (size_t i = 0; i < kept; ++i) {
    acc += head_p_[i];
    if (r < acc) return head_[i].second;
  }
  return head_[kept - 1].second;
}

std::optional<int32_t> Sampler::FastChoose(float max, size_t survivors, double uniform) {
  const size_t vocab = scaled_.size();
  size_t target = std::max(kFirstHead, survivors < vocab ? survivors : 0);
  if (target > kMaxHead) return std::nullopt;
  std::optional<float> threshold = TakeHead(target, max);
  if (!threshold) return std::nullopt;
  const float first_threshold = *threshold;

  // The softmax sum: the first head's ranks in order, the rest bounded.
  const size_t first = head_.size();
  double head_sum = 0;
  for (size_t j = 0; j < std::min(first, survivors); ++j) head_sum += head_e_[j];
  sampling::SumBounds sum{head_sum, head_sum};
  if (survivors > first) {
    const double inv_u = 1.0 / sampling::UlpOf(head_sum);
    if (!(head_e_.back() * inv_u < sampling::kMaxGridStep)) return std::nullopt;
    tail_e_.resize(vocab);
    const sampling::GridSums tail =
        sampling::ExpTail(scaled_, first_threshold, max, inv_u, tail_e_.data());
    std::optional<sampling::SumBounds> bounds = sampling::FinishSum(head_sum, tail);
    // A sum that may cross a power of two: both grids; or many: by bands.
    if (!bounds && head_sum * inv_u + tail.q_sum < 0x1p54)
      bounds = sampling::FinishSum(head_sum, sampling::GridTail(tail_e_, inv_u));
    if (!bounds) bounds = sampling::BandedSum(head_sum, tail_e_, head_sum + tail.q_sum / inv_u);
    if (!bounds) return std::nullopt;
    sum = *bounds;
  }

  std::optional<sampling::SumBounds> total;  // of the kept probabilities, past the head
  while (true) {
    // The head's probabilities: the same for every sum within the bounds.
    head_p_.resize(head_.size());
    for (size_t j = 0; j < head_.size(); ++j) {
      const auto p = static_cast<float>(head_e_[j] / sum.lo);
      if (p != static_cast<float>(head_e_[j] / sum.hi)) return std::nullopt;
      head_p_[j] = p;
    }
    const size_t in_head = std::min(head_.size(), survivors);
    size_t kept = survivors;   // the specification's n after each filter
    bool grow = false;         // a decision needs a larger head
    std::optional<Found> cut;  // top-p's last rank, past the head
    if (config_.top_p < 1.0) {
      double cumulative = 0;
      size_t keep = 0;
      bool reached = false;
      while (keep < in_head && !reached) {
        cumulative += head_p_[keep++];
        reached = cumulative >= config_.top_p;
      }
      if (reached || in_head == survivors) {
        kept = std::max<size_t>(keep, 1);
      } else if (head_.size() >= kDeepHead || cumulative < 0.5 * config_.top_p) {
        // The cut is deep in the tail: the rank whose running sum reaches top-p.
        cut = DeepRank({cumulative, config_.top_p, config_.top_p, 0.0, /*reach=*/true}, max,
                       *threshold, sum);
        if (!cut) return std::nullopt;
        kept = std::numeric_limits<size_t>::max();  // up to the cut
      } else {
        grow = true;
      }
    }
    double floor = 0;  // min-p's; 0 keeps every probability
    if (!grow && config_.min_p > 0.0) {
      floor = config_.min_p * head_p_[0];
      const size_t limit = std::min(kept, in_head);
      size_t keep = 1;
      while (keep < limit && head_p_[keep] >= floor) ++keep;
      // Every head rank passing while more are kept: the cut is past the head.
      if (keep < limit || kept <= in_head) kept = keep;
    }
    if (!grow && kept <= in_head) return PickInHead(kept, uniform);

    if (!grow) {
      // The kept ranks run past the head: their total is the running sum at
      // top-p's cut, or from the first head's ranks in order and the tail
      // bounded (every p >= floor; min-p's cut comes before top-p's).
      if (!total) {
        total = cut && cut->p >= floor ? sampling::SumBounds{cut->acc_lo, cut->acc_hi}
                                       : KeptTotal(first, sum, floor);
      }
      const double r_lo = uniform * total->lo, r_hi = uniform * total->hi;
      // The specification falls back to the last kept rank when the draw
      // passes them all: never within these bounds, or undecided.
      if (!(r_hi < total->lo)) return std::nullopt;
      double acc = 0;
      for (size_t j = 0; j < head_.size(); ++j) {
        acc += head_p_[j];
        if (r_lo < acc) {
          if (r_hi < acc) return head_[j].second;
          return std::nullopt;  // a boundary between the bounds' draws
        }
      }
      // A draw deep in the tail: a band of ranks around it, not a larger head
      // (at once when the head holds little of the draw's mass: a flat row).
      if (head_.size() >= kDeepHead || acc < 0.5 * r_lo) {
        const std::optional<Found> drawn =
            DeepRank({acc, r_lo, r_hi, floor, /*reach=*/false}, max, *threshold, sum);
        if (!drawn) return std::nullopt;
        ++stats_.deep;
        return drawn->id;
      }
    }
    // The cut or the draw lies past the head: a larger head, same sums.
    target *= kHeadGrowth;
    if (target > kMaxHead) return std::nullopt;
    threshold = TakeHead(target, max);
    if (!threshold) return std::nullopt;
  }
}

sampling::SumBounds Sampler::KeptTotal(size_t first, sampling::SumBounds sum, double floor) const {
  double start = 0;
  for (size_t j = 0; j < first; ++j) start += head_p_[j];
  // Loose bounds (~count ulps wide) do: only the draw, within about
  // 1e-11 of a boundary, could tell them apart.
  const sampling::ProbSums tail =
      sampling::ProbTailSums(tail_e_, scaled_, sampling::kEverything, sum.lo, sum.hi, floor);
  return sampling::LooseSum(start, tail.lo, tail.hi, tail.count);
}

std::optional<Sampler::Found> Sampler::DeepRank(const Target& target, float max,
                                                float head_threshold, sampling::SumBounds sum) {
  // Bisect the scaled logits below the head for a band [lo, hi) holding the
  // rank sought: about `want` of exp mass lies between the head and it. Only
  // candidates: the bounds below decide.
  const double want = (0.5 * (target.r_lo + target.r_hi) - target.acc) * 0.5 * (sum.lo + sum.hi);
  sampling::Range band{max + sampling::kNegligibleLogit, head_threshold};
  int64_t count = -1;       // ranks in [band.lo, head_threshold), once known
  int64_t count_above = 0;  // ranks in [band.hi, head_threshold)
  // A first bracket from every stride-th value: 12 sampled ranks either side
  // of where the sample's mass reaches `want`, each end checked.
  const size_t stride = std::max<size_t>(1, scaled_.size() / 1024);
  sample_.clear();
  for (size_t i = stride / 2; i < scaled_.size(); i += stride) {
    if (scaled_[i] >= band.lo && scaled_[i] < band.hi) sample_.emplace_back(scaled_[i], tail_e_[i]);
  }
  std::sort(sample_.begin(), sample_.end(), std::greater<>());
  double sampled = 0;
  for (size_t k = 0; k < sample_.size(); ++k) {
    sampled += sample_[k].second * static_cast<double>(stride);
    if (sampled < want) continue;
    const float hi_guess = k >= 12 ? sample_[k - 12].first : band.hi;
    const float lo_guess = k + 12 < sample_.size() ? sample_[k + 12].first : band.lo;
    const sampling::RangeMass above_hi =
        sampling::MassIn(tail_e_, scaled_, {hi_guess, head_threshold});
    if (above_hi.e_sum < want) {
      band.hi = hi_guess;
      count_above = above_hi.count;
    }
    const sampling::RangeMass above_lo =
        sampling::MassIn(tail_e_, scaled_, {lo_guess, head_threshold});
    if (above_lo.e_sum >= want) {
      band.lo = lo_guess;
      count = above_lo.count;
    }
    break;
  }
  if (count < 0) count = sampling::MassIn(tail_e_, scaled_, {band.lo, head_threshold}).count;
  while (count - count_above > kBand) {
    const float middle = 0.5f * (band.lo + band.hi);
    if (middle <= band.lo || middle >= band.hi) break;  // one value, tied ranks
    const sampling::RangeMass above = sampling::MassIn(tail_e_, scaled_, {middle, head_threshold});
    if (above.e_sum < want) {
      band.hi = middle;
      count_above = above.count;
    } else {
      band.lo = middle;
      count = above.count;
    }
  }
  if (count - count_above > kMaxBandWithTies) return std::nullopt;
  // Bounds on the running sum after the ranks between the head and the band.
  const sampling::ProbSums before = sampling::ProbTailSums(
      tail_e_, scaled_, {band.hi, head_threshold}, sum.lo, sum.hi, target.floor);
  double acc_lo = sampling::LooseSum(target.acc, before.lo, before.lo, before.count).lo;
  double acc_hi = sampling::LooseSum(target.acc, before.hi, before.hi, before.count).hi;
  // Whether a running sum passes the target (> a draw; >= top-p).
  const auto passes = [&](double acc, double r) { return target.reach ? acc >= r : acc > r; };
  if (passes(acc_hi, target.r_lo)) return std::nullopt;  // it may lie before the band
  // The band in rank order: the rank sought is the first whose running sum
  // passes, the same rank for every sum and target within the bounds.
  band_ids_.clear();
  sampling::CollectIn(scaled_, band, band_ids_);
  band_.clear();
  for (int32_t id : band_ids_) band_.emplace_back(scaled_[static_cast<size_t>(id)], id);
  std::sort(band_.begin(), band_.end(), sampling::RankBefore);
  std::optional<int32_t> earliest;
  for (const auto& [value, id] : band_) {
    const float e = tail_e_[static_cast<size_t>(id)];
    const auto p = static_cast<float>(e / sum.lo);
    if (p != static_cast<float>(e / sum.hi) || p < target.floor) return std::nullopt;
    acc_lo += p;
    acc_hi += p;
    if (!earliest && passes(acc_hi, target.r_lo)) earliest = id;
    if (passes(acc_lo, target.r_hi)) {
      if (earliest != id) return std::nullopt;
      return Found{id, p, acc_lo, acc_hi};
    }
  }
  return std::nullopt;  // past the band: the bisection's estimate was off
}

int32_t Sampler::ExactChoose(size_t survivors, double uniform) {
  sampling::RankOrder(scaled_, ranked_, radix_scratch_);
  // From here the specification's steps, over ranked_ in rank order.
  size_t n = survivors;
  // Softmax over the survivors, in place (first = probability from here on).
  const float max_logit = ranked_[0].first;
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    ranked_[i].first = std::exp(ranked_[i].first - max_logit);
    sum += ranked_[i].first;
  }
  for (size_t i = 0; i < n; ++i) ranked_[i].first = static_cast<float>(ranked_[i].first / sum);
  if (config_.top_p < 1.0) {
    double cumulative = 0;
    size_t keep = 0;
    while (keep < n) {
      cumulative += ranked_[keep++].first;
      if (cumulative >= config_.top_p) break;
    }
    n = std::max<size_t>(keep, 1);
  }
  if (config_.min_p > 0.0) {
    const double floor = config_.min_p * ranked_[0].first;
    size_t keep = 1;
    while (keep < n && ranked_[keep].first >= floor) ++keep;
    n = keep;
  }
  double total = 0;
  for (size_t i = 0; i < n; ++i) total += ranked_[i].first;
  const double r = uniform * total;
  double acc = 0;
  for (size_t i = 0; i < n; ++i) {
    acc += ranked_[i].first;
    if (r < acc) return ranked_[i].second;
  }
  return ranked_[n - 1].second;
}

}  // namespace orcd
