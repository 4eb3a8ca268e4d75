// JSON Schema's `pattern` (an ECMA-262 regular expression) as grammar
// rules over the inside of a JSON string, for the subset README lists:
// literals, `.`, classes `[...]` / `[^...]` of ASCII characters and ranges,
// the escapes \d \w \s \D \W \S and escaped metacharacters, groups `(...)` /
// `(?:...)`, alternation, the quantifiers * + ? {n} {n,} {n,m}, and the
// anchors ^ and $ at the ends. A pattern is matched anywhere in the string,
// as JSON Schema says, unless anchored. Characters are matched decoded: a
// `"` in the pattern is `\"` in the output, a newline `\n`.
#ifndef ORCD_HOST_STRUCTURED_PATTERN_GRAMMAR_H_
#define ORCD_HOST_STRUCTURED_PATTERN_GRAMMAR_H_

#include <string>

#include "host/structured/grammar.h"
#include "host/structured/json_grammar_pieces.h"

namespace orcd::structured {

// The symbol of the strings' insides (without the quotes) that contain a
// match of `pattern`. Throws Error(kInvalidArgument) naming keyword
// 'pattern' and what it does not support.
GrammarBuilder::Symbol AddPattern(GrammarBuilder& b, JsonGrammarPieces& pieces,
                                  const std::string& pattern);

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_PATTERN_GRAMMAR_H_
