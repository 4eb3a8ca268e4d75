// The sampler's rank order: larger value first, equal values by lower id.
// SelectTop finds the few best ranks in one pass; RankOrder puts a whole
// vocabulary in order in O(n) (a stable radix sort on the values' bits), for
// the sampler's exact path.
#ifndef ORCD_HOST_SAMPLING_RANK_ORDER_H_
#define ORCD_HOST_SAMPLING_RANK_ORDER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace orcd::sampling {

using Candidate = std::pair<float, int32_t>;  // (value, id)

inline bool RankBefore(const Candidate& a, const Candidate& b) {
  return a.first > b.first || (a.first == b.first && a.second < b.second);
}

// The ids of every value >= some threshold, returned, such that there are at
// least min(target, values.size()) of them, in no particular order; nullopt
// when ties at the threshold would make more than `limit`. Values must not be
// NaN.
std::optional<float> SelectTop(std::span<const float> values, size_t target, size_t limit,
                               std::vector<int32_t>& ids);

// Every (value, id) in rank order. `scratch` is reused between calls. Values
// must not be NaN.
void RankOrder(std::span<const float> values, std::vector<Candidate>& out,
               std::vector<uint64_t>& scratch);

}  // namespace orcd::sampling

#endif  // ORCD_HOST_SAMPLING_RANK_ORDER_H_
