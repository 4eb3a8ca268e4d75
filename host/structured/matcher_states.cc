#include "host/structured/matcher_states.h"

#include <optional>
#include <utility>

namespace orcd::structured {

MatcherStates::MatcherStates(GrammarMatcher start) { Intern(std::move(start)); }

size_t MatcherStates::KeyHash::operator()(const std::vector<uint32_t>& key) const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the words
  for (const uint32_t w : key) h = (h ^ w) * 1099511628211ull;
  return static_cast<size_t>(h ^ (h >> 29));
}

MatcherStates::Id MatcherStates::Intern(GrammarMatcher m) {
  std::vector<uint32_t> key = m.Key();
  if (const auto it = ids_.find(key); it != ids_.end()) return it->second;
  const Id id = static_cast<Id>(states_.size());
  ids_.emplace(key, id);
  const ByteSet takes = m.NextBytes();
  states_.push_back(State{std::move(m), std::move(key), takes, nullptr});
  return id;
}

MatcherStates::Id MatcherStates::Compute(Id from, uint8_t byte) {
  std::optional<GrammarMatcher> after = states_[from].matcher.After(byte);
  const Id to = after ? Intern(std::move(*after)) : kRefused;
  // Every byte the parses cannot tell from `byte` goes to the same state.
  // (Intern may grow the deque; its elements stay where they are.)
  const ByteSet same = states_[from].matcher.SameAs(byte);
  std::array<Id, 256>& next = *states_[from].next;
  for (size_t b = 0; b < 256; ++b) {
    if (same.test(b)) next[b] = to;
  }
  return to;
}

void MatcherStates::Reset(Id keep) {
  State kept = std::move(states_[keep]);
  kept.next.reset();
  states_.clear();
  ids_.clear();
  ids_.emplace(kept.key, 0);
  states_.push_back(std::move(kept));
}

}  // namespace orcd::structured
