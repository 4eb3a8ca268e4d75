// Template source to tokens, with jinja2's whitespace control as transformers
// configures it: trim_blocks (a newline right after a block or comment tag is
// dropped), lstrip_blocks (spaces and tabs before a block or comment tag at the
// start of a line are dropped), "-" / "+" markers, one trailing newline of the
// source dropped (keep_trailing_newline=False), \r\n and \r read as \n.
#ifndef ORCD_HOST_CHAT_JINJA_LEXER_H_
#define ORCD_HOST_CHAT_JINJA_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace orcd::jinja {

enum class TokenType {
  kData,           // template text, whitespace control applied
  kVariableBegin,  // {{
  kVariableEnd,    // }}
  kBlockBegin,     // {%
  kBlockEnd,       // %}
  kName,
  kString,    // text: the unescaped value
  kInteger,   // int_value
  kFloat,     // float_value
  kOperator,  // text: "+", "//", "==", "(", ...
  kEof,
};

struct Token {
  TokenType type = TokenType::kEof;
  std::string text;
  int64_t int_value = 0;
  double float_value = 0;
  int line = 1;
};

// Throws TemplateError(kSyntax) naming the line of a lexical error.
std::vector<Token> Tokenize(std::string_view source);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_LEXER_H_
