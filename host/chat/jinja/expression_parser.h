// Expressions of jinja2's grammar (parser.py): precedence from inline if
// down to primaries, tests binding tighter than comparisons, filters applying
// to the unary expression they follow.
#ifndef ORCD_HOST_CHAT_JINJA_EXPRESSION_PARSER_H_
#define ORCD_HOST_CHAT_JINJA_EXPRESSION_PARSER_H_

#include <string>
#include <vector>

#include "host/chat/jinja/filters.h"
#include "host/chat/jinja/token_stream.h"

namespace orcd::jinja {

class ExpressionParser : public TokenStream {
 public:
  using TokenStream::TokenStream;

 protected:
  ExprPtr ParseTuple(bool with_condexpr, Names extra_end, bool explicit_parens);
  ExprPtr ParseExpression(bool with_condexpr);
  ExprPtr ParseFilter(ExprPtr node, bool start_inline);

  // Macros being parsed, innermost last: a name read in one's body marks
  // whether it uses varargs / kwargs / caller.
  std::vector<MacroDef*> macros_;

 private:
  ExprPtr ParseCondExpr();
  ExprPtr ParseOr();
  ExprPtr ParseAnd();
  ExprPtr ParseNot();
  ExprPtr ParseCompare();
  ExprPtr ParseMath1();
  ExprPtr ParseConcat();
  ExprPtr ParseMath2();
  ExprPtr ParsePow();
  ExprPtr ParseUnary(bool with_filter);
  ExprPtr ParsePrimary();
  ExprPtr ParsePostfix(ExprPtr node);
  ExprPtr ParseSubscript(ExprPtr node);
  ExprPtr ParseSubscribed();
  CallSyntax ParseCallArgs();
  ExprPtr ParseCall(ExprPtr node);
  ExprPtr ParseFilterExpr(ExprPtr node);
  ExprPtr ParseTest(ExprPtr node);
  std::string DottedName();
  static ExprPtr Binary(ExprKind kind, ExprPtr left, ExprPtr right, int line);
  static ExprPtr Arith(BinaryOp op, ExprPtr left, ExprPtr right, int line);
  static ExprPtr Literal(Value v, int line);
  static void CheckAvailable(Availability a, std::string_view what, const std::string& name,
                             int line);
};

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_EXPRESSION_PARSER_H_
