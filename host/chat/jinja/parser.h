// Tokens to the template's statement tree, following jinja2's grammar
// (parser.py): operator precedence, tests binding tighter than comparisons,
// filters applying to the unary expression they follow, tuples without
// parentheses where jinja2 allows them.
#ifndef ORCD_HOST_CHAT_JINJA_PARSER_H_
#define ORCD_HOST_CHAT_JINJA_PARSER_H_

#include <vector>

#include "host/chat/jinja/ast.h"
#include "host/chat/jinja/lexer.h"

namespace orcd::jinja {

// Deepest nesting of statements and expressions a template may use; deeper
// input is refused rather than risking the stack.
inline constexpr int kMaxParseDepth = 200;

// Throws TemplateError naming the line: kSyntax for malformed input,
// kUnsupported for valid Jinja this engine refuses (include, extends, unknown
// filters, recursive loops).
Body Parse(std::vector<Token> tokens);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_PARSER_H_
