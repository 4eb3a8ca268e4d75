// A context-free grammar over bytes, the form constrained decoding runs
// (grammar_matcher.h): rules of alternatives, each a sequence of symbols
// that are byte classes or other rules. Stored flat, as llama.cpp's GBNF
// engine does: every alternative's symbols then an end marker, so a parse
// position is one index. Grammars are built (GrammarBuilder) by compilers
// such as json_schema_grammar.h, never parsed from user text.
#ifndef ORCD_HOST_STRUCTURED_GRAMMAR_H_
#define ORCD_HOST_STRUCTURED_GRAMMAR_H_

#include <bitset>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace orcd::structured {

using ByteSet = std::bitset<256>;

class Grammar {
 public:
  struct Symbol {
    // kToken: one control token, named by its text (a chat format's markup
    // such as "<|channel|>"), never spelled in bytes.
    enum Kind : uint8_t { kEnd, kBytes, kRule, kToken };
    Kind kind = kEnd;
    uint32_t index = 0;  // kBytes: a byte set; kRule: a rule; kToken: a control token text
  };

  uint32_t root() const { return root_; }
  const Symbol& at(uint32_t position) const { return symbols_[position]; }
  // Where each alternative of `rule` starts.
  std::span<const uint32_t> alternatives(uint32_t rule) const {
    return {starts_.data() + rule_first_[rule], starts_.data() + rule_first_[rule + 1]};
  }
  const ByteSet& bytes(uint32_t set) const { return byte_sets_[set]; }
  const std::string& control_token(uint32_t i) const { return control_tokens_[i]; }
  size_t control_tokens() const { return control_tokens_.size(); }
  size_t rules() const { return rule_first_.size() - 1; }
  size_t size() const { return symbols_.size(); }

 private:
  friend class GrammarBuilder;
  uint32_t root_ = 0;
  std::vector<Symbol> symbols_;
  std::vector<uint32_t> starts_;      // alternative start positions, by rule
  std::vector<uint32_t> rule_first_;  // rule r's alternatives: starts_[first[r], first[r + 1])
  std::vector<ByteSet> byte_sets_;
  std::vector<std::string> control_tokens_;
};

// Builds a Grammar. Rules may refer to rules defined later (recursion), but
// never to themselves first thing (left recursion) and never repeat
// something that can be empty: Build() refuses both, since matching them
// would not terminate.
class GrammarBuilder {
 public:
  using Symbol = Grammar::Symbol;
  using Sequence = std::vector<Symbol>;

  // A rule to be defined later (for recursion), and its definition.
  uint32_t Declare();
  void Define(uint32_t rule, std::vector<Sequence> alternatives);
  // Declare + Define.
  uint32_t AddRule(std::vector<Sequence> alternatives);

  Symbol Bytes(const ByteSet& set);
  Symbol Byte(uint8_t b);
  Symbol Range(uint8_t lo, uint8_t hi);
  static Symbol Ref(uint32_t rule) { return {Symbol::kRule, rule}; }
  // The control token whose text is `text` (the constraint finds its id in
  // the vocabulary).
  Symbol ControlToken(std::string_view text);
  // The bytes of `text` in order.
  Sequence Literal(std::string_view text);

  // A rule for `s` or nothing; for zero or more of `s` (right-recursive);
  // for `min` to `max` of `s` (max < 0: no bound).
  Symbol Optional(Sequence s);
  Symbol Star(Sequence s);
  Symbol Repeat(const Sequence& s, int64_t min, int64_t max);

  // Throws Error(kInternal) for an undefined rule, left recursion or a
  // repeated empty match.
  Grammar Build(uint32_t root) const;

 private:
  std::vector<std::vector<Sequence>> rules_;
  std::vector<bool> defined_;
  std::vector<ByteSet> byte_sets_;
  std::vector<std::string> control_tokens_;
};

// Appends `more` to `s`.
inline void Append(GrammarBuilder::Sequence& s, const GrammarBuilder::Sequence& more) {
  s.insert(s.end(), more.begin(), more.end());
}

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_GRAMMAR_H_
