// One job's constrained decoding: which tokens may come next so that the
// output stays a prefix of a sentence of its grammar, and the end only
// where the grammar can end. The allowed set of a matcher state is computed
// by walking the vocabulary's trie once and kept (a job inside a JSON
// string, or at the same place of the next array item, meets the same
// state again: the walk is skipped). The walk reads the job's states and
// their byte transitions from a table (matcher_states.h).
#ifndef ORCD_HOST_STRUCTURED_TOKEN_CONSTRAINT_H_
#define ORCD_HOST_STRUCTURED_TOKEN_CONSTRAINT_H_

#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/structured/grammar.h"
#include "host/structured/grammar_matcher.h"
#include "host/structured/mask_cache.h"
#include "host/structured/matcher_states.h"
#include "host/structured/token_trie.h"

namespace orcd::structured {

class TokenConstraint {
 public:
  // `trie` must outlive the constraint. `shared`: the grammar's masks kept
  // across jobs (mask_cache.h; null: this job's own only).
  TokenConstraint(std::shared_ptr<const Grammar> grammar, const TokenTrie& trie,
                  std::shared_ptr<MaskCache> shared = nullptr);

  // Sets the logits of every token that may not come next to -infinity.
  // Throws Error(kInternal) when no token may (a vocabulary without the
  // bytes the grammar needs).
  void Mask(std::span<float> logits);
  // Whether `token` may come next: its bytes matched from the current
  // state (cheap: no mask), or the end where the output may end.
  bool Allows(TokenId token) const;
  // The same answer read from the mask (computing it for this state).
  bool MaskAllows(TokenId token);
  // The mask itself: bits by token id (end tokens included where the output
  // may end), for a sampler that masks where the logits are (the device).
  // Valid until the next call on this constraint; throws as Mask does when
  // no token may come next.
  std::span<const uint64_t> AllowedBits();
  // Which of the grammar's control tokens `token` is, where the grammar
  // expects one next.
  std::optional<uint32_t> ControlTokenIndex(TokenId token) const;
  // Moves past `token` (which Mask allowed; an end token ends nothing here).
  void Accept(TokenId token);
  // The output is a whole sentence and nothing may follow: only an end.
  bool Finished() const { return matcher().CanEnd() && !matcher().CanContinue(); }

 private:
  // Bits of the tokens allowed in the current state (end tokens included
  // when it can end), computed once per state.
  const std::vector<uint64_t>& Allowed();
  void Walk(uint32_t node, const GrammarMatcher& at, std::vector<uint64_t>& bits);
  // A state at a character boundary from which every JSON-string text
  // character (NextText) leads to one and the same next state, except a few
  // ASCII `exceptions` (at most kMaxExceptions: a listed key's first letter,
  // an unanchored pattern's start) that the walk hands to the grammar:
  // inside a string, counted (maxLength) or free (then `next` is the step
  // itself), text tokens are read with a UTF-8 reader instead of matching
  // them, and a free string's subtrees that are all text are taken whole.
  static constexpr size_t kMaxExceptions = 16;
  using StateId = MatcherStates::Id;
  static constexpr StateId kNone = MatcherStates::kRefused;
  struct TextStep {
    StateId state;
    std::bitset<128> exceptions;
    StateId after_text;        // where every other text character leads
    bool loops = false;        // after_text is `state`
    TextStep* next = nullptr;  // StepOf(after_text), once resolved
    bool next_resolved = false;
    // No byte but text, '"' and '\\' is taken at a character boundary,
    // and none but a character's own continuations inside one.
    bool closed = false;
    // WalkRunThroughExceptions' check of the states text reaches from here:
    // 0 not made yet, 1 they take every character, -1 not.
    int8_t text_total = 0;
  };
  const GrammarMatcher& matcher() const { return states_.matcher(current_); }
  void Walk(uint32_t node, StateId at, std::vector<uint64_t>& bits);
  // Walk's step into `child`, reached by `byte` from `from` in state `next`.
  void WalkChild(uint32_t child, uint8_t byte, StateId from, StateId next,
                 std::vector<uint64_t>& bits);
  // The state's TextStep, or null (computed once per state, exactly).
  TextStep* StepOf(StateId at);
  TextStep* NextStep(TextStep& step);
  // The walk below `node` from `step`'s state plus `partial`, the bytes of
  // an unfinished character (`text`: the reader's state). `char_start`:
  // where that character began when it was not step.state (the walk
  // entered text mid-character), else kNone.
  void WalkText(uint32_t node, TextStep& step, Utf8State text, std::string& partial,
                StateId char_start, std::vector<uint64_t>& bits);
  // WalkText's answer below `node` (a text run's character boundary, at
  // `step`) read from the trie's text runs: every text token, and the
  // grammar only after each quote or backslash that ends the run and below
  // `step`'s exceptions (a listed key's first letter). False (nothing
  // marked) where the steps ahead do not all take every text character
  // alike.
  bool WalkRun(uint32_t node, TextStep& step, std::vector<uint64_t>& bits);
  // WalkRun's other way, for steps whose exceptions recur (an unanchored
  // pattern's letter): where the states text can reach from `step`'s are few
  // and each takes every character (its exceptions lead to others of them),
  // every token of the run is taken, and each quote or backslash that ends
  // the run is walked from the state its path reaches (its bytes replayed
  // through the table). False (nothing marked) otherwise.
  bool WalkRunThroughExceptions(uint32_t node, TextStep& step, std::vector<uint64_t>& bits);
  // Every token of `node`'s text run (the root's as words of bits).
  void MarkRun(uint32_t node, std::vector<uint64_t>& bits) const;
  // From `mid`, a character begun (text state `text`): the state every way
  // of finishing it leads to, where that state's TextStep loops, checked
  // byte layer by layer; else kNone. Computed once per state.
  StateId LoopAfterCharacter(StateId mid, Utf8State text);
  // Forgets the table's states but the current one when it has grown past
  // a job's worth (between masks, never inside a walk).
  void BoundStates();

  const TokenTrie& trie_;
  MatcherStates states_;
  StateId current_ = 0;
  std::shared_ptr<MaskCache> shared_;
  std::map<std::vector<uint32_t>, std::shared_ptr<const MaskBits>> allowed_;  // by state key
  // By state id (cleared with the table): a state's TextStep once decided
  // (null: none), and LoopAfterCharacter's answers by id * 16 + text state.
  std::unordered_map<StateId, std::unique_ptr<TextStep>> steps_;
  std::unordered_map<uint64_t, StateId> after_character_;
};

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_TOKEN_CONSTRAINT_H_
