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
#include "host/structured/token_trie.h"

namespace orcd::structured {

class TokenConstraint {
 public:
  // `trie` must outlive the constraint.
  TokenConstraint(std::shared_ptr<const Grammar> grammar, const TokenTrie& trie);

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
  // A state that JSON-string text characters (NextText) lead back to: every
  // character but a few ASCII `exceptions` (a listed key's first letter, an
  // unanchored pattern's start; at most kMaxExceptions). Inside a free
  // string, text tokens are then taken without matching them.
  static constexpr size_t kMaxExceptions = 16;
  struct TextLoop {
    std::bitset<128> exceptions;
  };
  // The state's TextLoop, or null (computed once per state, exactly).
  const TextLoop* LoopOf(const GrammarMatcher& at);
  struct LoopSteps {
    GrammarMatcher loop;
    std::bitset<128> exceptions;
    // Where each byte that is not text leads from `loop` (filled when first
    // met; nullopt: refused).
    std::array<bool, 256> known{};
    std::array<std::optional<GrammarMatcher>, 256> next;
  };
  // The walk below `node` from a TextLoop state: text bytes are read by the
  // UTF-8 text reader alone (`text` is its state, `partial` the bytes of an
  // unfinished character); an exception or any other byte goes back to the
  // grammar. `char_start`: where the unfinished character began when that
  // was not the loop state (the walk entered text mid-character), else null.
  void WalkText(uint32_t node, LoopSteps& steps, Utf8State text, std::string& partial,
                const GrammarMatcher* char_start, std::vector<uint64_t>& bits);
  // From `mid`, a character begun (text state `text`): whether every way of
  // finishing it is taken and leads to one state that loops over text (that
  // state), checked byte layer by layer; computed once per state.
  const std::optional<GrammarMatcher>& LoopAfterCharacter(const GrammarMatcher& mid,
                                                          Utf8State text);
  LoopSteps& StepsFrom(const GrammarMatcher& loop, const TextLoop& text);

  const TokenTrie& trie_;
  GrammarMatcher matcher_;
  std::map<std::vector<uint32_t>, std::vector<uint64_t>> allowed_;     // by matcher state
  std::map<std::vector<uint32_t>, std::optional<TextLoop>> loops_;     // by matcher state
  std::map<std::vector<uint32_t>, std::unique_ptr<LoopSteps>> steps_;  // by loop state
  std::map<std::vector<uint32_t>, std::optional<GrammarMatcher>> after_character_;
};

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_TOKEN_CONSTRAINT_H_
