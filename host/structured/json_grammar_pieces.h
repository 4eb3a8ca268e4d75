// The grammar pieces of JSON text shared by the schema compiler: strings
// (valid UTF-8, JSON escapes), numbers, integers in a range, formats, and any
// value, each built once per grammar. Compact: no whitespace anywhere.
#ifndef ORCD_HOST_STRUCTURED_JSON_GRAMMAR_PIECES_H_
#define ORCD_HOST_STRUCTURED_JSON_GRAMMAR_PIECES_H_

#include <cstdint>
#include <optional>
#include <string>

#include "host/structured/grammar.h"

namespace orcd::structured {

class JsonGrammarPieces {
 public:
  using Symbol = GrammarBuilder::Symbol;
  explicit JsonGrammarPieces(GrammarBuilder& b) : b_(b) {}

  Symbol Value();
  Symbol AnyObject();
  Symbol AnyArray();
  Symbol String();
  // One character of a string's inside: a UTF-8 character other than '"',
  // '\' and controls, or an escape.
  Symbol StringChar();
  // One non-ASCII character, well-formed UTF-8.
  Symbol NonAsciiChar();
  Symbol Number();
  Symbol Boolean();
  Symbol Null();
  // Integers in [lo, hi] (either bound optional), in canonical decimal.
  Symbol IntegerRange(std::optional<int64_t> lo, std::optional<int64_t> hi);
  // A string of format date, time, date-time, uuid or email; else throws
  // Error(kInvalidArgument).
  Symbol Format(const std::string& name);

 private:
  using Sequence = GrammarBuilder::Sequence;
  Symbol Digit() { return b_.Range('0', '9'); }
  // Non-negative integers in [lo, hi] (hi < 0: no bound), canonical.
  std::vector<Sequence> Magnitudes(int64_t lo, int64_t hi);
  // Same-length digit strings from a to b.
  void DigitRange(const std::string& a, const std::string& b, Sequence prefix,
                  std::vector<Sequence>& out);
  Symbol Lazy(std::optional<Symbol>& cached, const std::vector<Sequence>& alternatives);

  GrammarBuilder& b_;
  std::optional<Symbol> value_, object_, array_, string_, char_, non_ascii_, number_, boolean_,
      null_;
  std::optional<uint32_t> value_rule_;
};

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_JSON_GRAMMAR_PIECES_H_
