// The token cursor both parsers share (parser.cc for statements,
// expression_parser.cc for expressions): lookahead, expectations, syntax
// errors naming the line, and the nesting bound.
#ifndef ORCD_HOST_CHAT_JINJA_TOKEN_STREAM_H_
#define ORCD_HOST_CHAT_JINJA_TOKEN_STREAM_H_

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/chat/jinja/ast.h"
#include "host/chat/jinja/lexer.h"
#include "host/chat/jinja/parser.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {

using Names = std::initializer_list<std::string_view>;

// How a token reads in an error message.
std::string Describe(const Token& t);

class TokenStream {
 public:
  explicit TokenStream(std::vector<Token> tokens) : t_(std::move(tokens)) {}

 protected:
  // Bounds recursion through statements and expressions.
  class DepthGuard {
   public:
    explicit DepthGuard(TokenStream& p) : p_(p) {
      if (++p_.depth_ > kMaxParseDepth) {
        throw TemplateError(
            ErrorKind::kLimit,
            "template nests deeper than " + std::to_string(kMaxParseDepth) + " levels",
            p_.Cur().line);
      }
    }
    ~DepthGuard() { --p_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    TokenStream& p_;
  };

  const Token& Cur() const { return t_[i_]; }
  const Token& Look() const { return t_[std::min(i_ + 1, t_.size() - 1)]; }
  const Token& Next() {
    const Token& t = t_[i_];
    if (i_ + 1 < t_.size()) ++i_;
    return t;
  }
  bool IsName(std::string_view n) const {
    return Cur().type == TokenType::kName && Cur().text == n;
  }
  bool IsNameIn(Names names) const {
    return Cur().type == TokenType::kName &&
           std::find(names.begin(), names.end(), Cur().text) != names.end();
  }
  bool IsOp(std::string_view op) const {
    return Cur().type == TokenType::kOperator && Cur().text == op;
  }
  bool SkipName(std::string_view n) {
    if (!IsName(n)) return false;
    Next();
    return true;
  }
  bool SkipOp(std::string_view op) {
    if (!IsOp(op)) return false;
    Next();
    return true;
  }
  [[noreturn]] void Fail(const std::string& message) const {
    throw TemplateError(ErrorKind::kSyntax, message, Cur().line);
  }
  void ExpectOp(std::string_view op) {
    if (!SkipOp(op)) Fail("expected '" + std::string(op) + "', got '" + Describe(Cur()) + "'");
  }
  void Expect(TokenType type, std::string_view what) {
    if (Cur().type != type)
      Fail("expected " + std::string(what) + ", got '" + Describe(Cur()) + "'");
    Next();
  }
  std::string ExpectName() {
    if (Cur().type != TokenType::kName) Fail("expected a name, got '" + Describe(Cur()) + "'");
    return Next().text;
  }

  static ExprPtr MakeExpr(ExprKind kind, int line) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->line = line;
    return e;
  }
  static NodePtr MakeNode(NodeKind kind, int line) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->line = line;
    return n;
  }

  bool IsTupleEnd(Names extra_end) const {
    const TokenType type = Cur().type;
    if (type == TokenType::kVariableEnd || type == TokenType::kBlockEnd || IsOp(")")) return true;
    return extra_end.size() > 0 && IsNameIn(extra_end);
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_TOKEN_STREAM_H_
