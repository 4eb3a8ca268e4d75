// One job's constrained decoding: which tokens may come next so that the
// output stays a prefix of a sentence of its grammar, and the end only
// where the grammar can end. The allowed set of a matcher state is computed
// by walking the vocabulary's trie once and kept (a job inside a JSON
// string, or at the same place of the next array item, meets the same
// state again: the walk is skipped).
#ifndef ORCD_HOST_STRUCTURED_TOKEN_CONSTRAINT_H_
#define ORCD_HOST_STRUCTURED_TOKEN_CONSTRAINT_H_

#include <array>
#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "host/structured/grammar.h"
#include "host/structured/grammar_matcher.h"
#include "host/structured/mask_cache.h"
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
  // Which of the grammar's control tokens `token` is, where the grammar
  // expects one next.
  std::optional<uint32_t> ControlTokenIndex(TokenId token) const;
  // Moves past `token` (which Mask allowed; an end token ends nothing here).
  void Accept(TokenId token);
  // The output is a whole sentence and nothing may follow: only an end.
  bool Finished() const { return matcher_.CanEnd() && !matcher_.CanContinue(); }

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
  struct TextStep {
    GrammarMatcher state;
    std::bitset<128> exceptions;
    GrammarMatcher after_text;  // where every other text character leads
    bool loops = false;         // after_text is `state`
    TextStep* next = nullptr;   // StepOf(after_text), once resolved
    bool next_resolved = false;
    // Where each byte that is not text (or is an exception) leads from
    // `state` (filled when first met; nullopt: refused).
    std::array<bool, 256> known{};
    std::array<std::optional<GrammarMatcher>, 256> after;
  };
  // The state's TextStep, or null (computed once per state, exactly).
  TextStep* StepOf(const GrammarMatcher& at);
  TextStep* NextStep(TextStep& step);
  // The walk below `node` from `step`'s state plus `partial`, the bytes of
  // an unfinished character (`text`: the reader's state). `char_start`:
  // where that character began when it was not step->state (the walk
  // entered text mid-character), else null.
  void WalkText(uint32_t node, TextStep& step, Utf8State text, std::string& partial,
                const GrammarMatcher* char_start, std::vector<uint64_t>& bits);
  // From `mid`, a character begun (text state `text`): whether every way of
  // finishing it is taken and leads to one state whose TextStep loops (that
  // state), checked byte layer by layer; computed once per state.
  const std::optional<GrammarMatcher>& LoopAfterCharacter(const GrammarMatcher& mid,
                                                          Utf8State text);

  const TokenTrie& trie_;
  GrammarMatcher matcher_;
  std::shared_ptr<MaskCache> shared_;
  std::map<std::vector<uint32_t>, std::shared_ptr<const MaskBits>> allowed_;  // by matcher state
  std::map<std::vector<uint32_t>, std::unique_ptr<TextStep>> steps_;  // by state; null: none
  std::map<std::vector<uint32_t>, std::optional<GrammarMatcher>> after_character_;
};

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_TOKEN_CONSTRAINT_H_
