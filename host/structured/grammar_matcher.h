// Where a byte string stands in a Grammar: the set of parse stacks that
// have matched it (a pushdown automaton run on every parse at once, as
// llama.cpp's grammar engine does). Each stack holds return positions under
// the position of the next byte class to match; an empty stack means the
// bytes so far are a whole sentence. Continuations that would return to the
// end of an alternative are not pushed (tail calls), so right recursion
// (repetition) does not grow the stacks.
#ifndef ORCD_HOST_STRUCTURED_GRAMMAR_MATCHER_H_
#define ORCD_HOST_STRUCTURED_GRAMMAR_MATCHER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "host/structured/grammar.h"

namespace orcd::structured {

class GrammarMatcher {
 public:
  // At the start of the grammar's root rule.
  explicit GrammarMatcher(std::shared_ptr<const Grammar> grammar);

  // Matches one more byte; false (nothing changed) when no parse takes it.
  bool Accept(uint8_t byte);
  // The state after `byte`, or nullopt where Accept would refuse it: a copy
  // and Accept without copying the stacks it replaces.
  std::optional<GrammarMatcher> After(uint8_t byte) const;
  // Matches all of `bytes`, or returns false with nothing changed.
  bool AcceptBytes(std::string_view bytes);
  // Matches the grammar's control token `index` (Grammar::control_token);
  // false (nothing changed) when no parse expects it here.
  bool AcceptControlToken(uint32_t index);
  // The bytes some parse takes next (After refuses every other).
  ByteSet NextBytes() const;
  // The bytes every parse treats as it treats `byte`: After gives each of
  // them the state it gives `byte` (a state's transitions are computed
  // once per such class, not per byte).
  ByteSet SameAs(uint8_t byte) const;
  // The control tokens some parse expects next.
  std::vector<uint32_t> ControlTokensNext() const;
  // Whether what was matched is a whole sentence, and whether any byte may
  // still follow.
  bool CanEnd() const;
  bool CanContinue() const;
  const Grammar& grammar() const { return *grammar_; }
  // The state, as a key: equal keys accept the same continuations.
  std::vector<uint32_t> Key() const;

 private:
  using Stack = std::vector<uint32_t>;
  // No stacks yet (After fills them).
  GrammarMatcher(std::shared_ptr<const Grammar> grammar, std::vector<std::vector<uint32_t>> stacks)
      : grammar_(std::move(grammar)), stacks_(std::move(stacks)) {}
  // Expands `stack` until its top is a byte class (or it is empty) into `out`.
  void Expand(Stack stack, std::vector<Stack>& out, int depth) const;
  // The stacks after `byte`, into `out` (sorted, distinct).
  void Advance(uint8_t byte, std::vector<Stack>& out) const;

  std::shared_ptr<const Grammar> grammar_;
  std::vector<Stack> stacks_;  // sorted, distinct
};

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_GRAMMAR_MATCHER_H_
