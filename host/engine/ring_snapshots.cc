#include "host/engine/ring_snapshots.h"

#include <algorithm>

namespace orcd::engine {

RingSnapshots::RingSnapshots(int64_t first_slot, int64_t slots)
    : first_slot_(first_slot), entries_(static_cast<size_t>(std::max<int64_t>(slots, 0))) {}

int64_t RingSnapshots::Find(int32_t block, uint64_t generation) {
  for (size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    if (e.used == 0 || e.block != block || e.generation != generation) continue;
    e.used = ++clock_;
    return first_slot_ + static_cast<int64_t>(i);
  }
  return -1;
}

int64_t RingSnapshots::Claim(int32_t block, uint64_t generation) {
  if (entries_.empty() || Find(block, generation) >= 0) return -1;
  const auto oldest =
      std::min_element(entries_.begin(), entries_.end(),
                       [](const Entry& a, const Entry& b) { return a.used < b.used; });
  *oldest = Entry{block, generation, ++clock_};
  return first_slot_ + (oldest - entries_.begin());
}

}  // namespace orcd::engine
