// The matcher states one job meets, numbered, with their byte transitions
// remembered: a lazily built DFA over GrammarMatcher states. A mask walks
// the vocabulary's trie byte by byte, and most bytes lead from a state met
// before to a state met before (text inside a string, the same key again),
// so a walk step is a table read instead of copying and sorting stacks.
#ifndef ORCD_HOST_STRUCTURED_MATCHER_STATES_H_
#define ORCD_HOST_STRUCTURED_MATCHER_STATES_H_

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "host/structured/grammar_matcher.h"

namespace orcd::structured {

class MatcherStates {
 public:
  using Id = uint32_t;
  static constexpr Id kRefused = UINT32_MAX;

  // Numbers `start` (id 0).
  explicit MatcherStates(GrammarMatcher start);

  // The id of `m`'s state (equal keys: equal ids).
  Id Intern(GrammarMatcher m);
  // The state after `byte`, or kRefused.
  Id Next(Id from, uint8_t byte) {
    State& s = states_[from];
    if (!s.takes.test(byte)) return kRefused;
    if (s.next == nullptr) {
      s.next = std::make_unique<std::array<Id, 256>>();
      s.next->fill(kUnknown);
    }
    Id& to = (*s.next)[byte];
    if (to == kUnknown) to = Compute(from, byte);
    return to;
  }
  // The state after all of `bytes`, or kRefused.
  Id After(Id from, std::string_view bytes) {
    for (const char c : bytes) {
      if (from == kRefused) break;
      from = Next(from, static_cast<uint8_t>(c));
    }
    return from;
  }
  const GrammarMatcher& matcher(Id s) const { return states_[s].matcher; }
  const std::vector<uint32_t>& key(Id s) const { return states_[s].key; }
  size_t size() const { return states_.size(); }
  // Forgets every state but `keep`, which becomes id 0 (a job's table is
  // bounded this way between masks).
  void Reset(Id keep);

 private:
  static constexpr Id kUnknown = UINT32_MAX - 1;
  struct State {
    GrammarMatcher matcher;
    std::vector<uint32_t> key;
    ByteSet takes;  // NextBytes: every other byte is refused without a look
    std::unique_ptr<std::array<Id, 256>> next;  // kUnknown until computed
  };
  struct KeyHash {
    size_t operator()(const std::vector<uint32_t>& key) const;
  };
  Id Compute(Id from, uint8_t byte);

  std::deque<State> states_;  // by id
  std::unordered_map<std::vector<uint32_t>, Id, KeyHash> ids_;
};

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_MATCHER_STATES_H_
