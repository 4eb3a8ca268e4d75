#include "host/chat/jinja/expression_parser.h"

#include <utility>

namespace orcd::jinja {

ExprPtr ExpressionParser::ParseTuple(bool with_condexpr, Names extra_end, bool explicit_parens) {
  const int line = Cur().line;
  std::vector<ExprPtr> items;
  bool is_tuple = false;
  while (true) {
    if (!items.empty()) ExpectOp(",");
    if (IsTupleEnd(extra_end)) break;
    items.push_back(ParseExpression(with_condexpr));
    if (!IsOp(",")) break;
    is_tuple = true;
  }
  if (!is_tuple) {
    if (!items.empty()) return std::move(items[0]);
    if (!explicit_parens) Fail("Expected an expression, got '" + Describe(Cur()) + "'");
  }
  ExprPtr e = MakeExpr(ExprKind::kTuple, line);
  e->items = std::move(items);
  return e;
}

ExprPtr ExpressionParser::ParseExpression(bool with_condexpr) {
  return with_condexpr ? ParseCondExpr() : ParseOr();
}

ExprPtr ExpressionParser::ParseCondExpr() {
  ExprPtr expr = ParseOr();
  while (IsName("if")) {
    const int line = Next().line;
    ExprPtr e = MakeExpr(ExprKind::kCondExpr, line);
    e->a = ParseOr();
    e->b = std::move(expr);
    if (SkipName("else")) e->c = ParseCondExpr();
    expr = std::move(e);
  }
  return expr;
}

ExprPtr ExpressionParser::Binary(ExprKind kind, ExprPtr left, ExprPtr right, int line) {
  ExprPtr e = MakeExpr(kind, line);
  e->a = std::move(left);
  e->b = std::move(right);
  return e;
}

ExprPtr ExpressionParser::ParseOr() {
  ExprPtr left = ParseAnd();
  while (IsName("or")) {
    const int line = Next().line;
    left = Binary(ExprKind::kOr, std::move(left), ParseAnd(), line);
  }
  return left;
}

ExprPtr ExpressionParser::ParseAnd() {
  ExprPtr left = ParseNot();
  while (IsName("and")) {
    const int line = Next().line;
    left = Binary(ExprKind::kAnd, std::move(left), ParseNot(), line);
  }
  return left;
}

ExprPtr ExpressionParser::ParseNot() {
  if (IsName("not")) {
    DepthGuard guard(*this);
    ExprPtr e = MakeExpr(ExprKind::kNot, Next().line);
    e->a = ParseNot();
    return e;
  }
  return ParseCompare();
}

ExprPtr ExpressionParser::ParseCompare() {
  const int line = Cur().line;
  ExprPtr first = ParseMath1();
  std::vector<std::pair<CompareOp, ExprPtr>> ops;
  while (true) {
    static constexpr std::pair<std::string_view, CompareOp> kOps[] = {
        {"==", CompareOp::kEq}, {"!=", CompareOp::kNe}, {"<", CompareOp::kLt},
        {"<=", CompareOp::kLe}, {">", CompareOp::kGt},  {">=", CompareOp::kGe}};
    bool matched = false;
    for (const auto& [text, op] : kOps) {
      if (IsOp(text)) {
        Next();
        ops.emplace_back(op, ParseMath1());
        matched = true;
        break;
      }
    }
    if (matched) continue;
    if (SkipName("in")) {
      ops.emplace_back(CompareOp::kIn, ParseMath1());
    } else if (IsName("not") && Look().type == TokenType::kName && Look().text == "in") {
      Next();
      Next();
      ops.emplace_back(CompareOp::kNotIn, ParseMath1());
    } else {
      break;
    }
  }
  if (ops.empty()) return first;
  ExprPtr e = MakeExpr(ExprKind::kCompare, line);
  e->a = std::move(first);
  e->comparisons = std::move(ops);
  return e;
}

ExprPtr ExpressionParser::Arith(BinaryOp op, ExprPtr left, ExprPtr right, int line) {
  ExprPtr e = Binary(ExprKind::kBinary, std::move(left), std::move(right), line);
  e->binary_op = op;
  return e;
}

ExprPtr ExpressionParser::ParseMath1() {
  ExprPtr left = ParseConcat();
  while (IsOp("+") || IsOp("-")) {
    const Token& t = Next();
    const BinaryOp op = t.text == "+" ? BinaryOp::kAdd : BinaryOp::kSub;
    left = Arith(op, std::move(left), ParseConcat(), t.line);
  }
  return left;
}

ExprPtr ExpressionParser::ParseConcat() {
  const int line = Cur().line;
  ExprPtr first = ParseMath2();
  if (!IsOp("~")) return first;
  ExprPtr e = MakeExpr(ExprKind::kConcat, line);
  e->items.push_back(std::move(first));
  while (SkipOp("~")) e->items.push_back(ParseMath2());
  return e;
}

ExprPtr ExpressionParser::ParseMath2() {
  ExprPtr left = ParsePow();
  while (IsOp("*") || IsOp("/") || IsOp("//") || IsOp("%")) {
    const Token& t = Next();
    const BinaryOp op = t.text == "*"    ? BinaryOp::kMul
                        : t.text == "/"  ? BinaryOp::kDiv
                        : t.text == "//" ? BinaryOp::kFloorDiv
                                         : BinaryOp::kMod;
    left = Arith(op, std::move(left), ParsePow(), t.line);
  }
  return left;
}

ExprPtr ExpressionParser::ParsePow() {
  ExprPtr left = ParseUnary(true);
  while (IsOp("**")) {
    const int line = Next().line;
    left = Arith(BinaryOp::kPow, std::move(left), ParseUnary(true), line);
  }
  return left;
}

ExprPtr ExpressionParser::ParseUnary(bool with_filter) {
  DepthGuard guard(*this);
  ExprPtr node;
  if (IsOp("-") || IsOp("+")) {
    const Token& t = Next();
    node = MakeExpr(t.text == "-" ? ExprKind::kNeg : ExprKind::kPos, t.line);
    node->a = ParseUnary(false);
  } else {
    node = ParsePrimary();
  }
  node = ParsePostfix(std::move(node));
  if (with_filter) node = ParseFilterExpr(std::move(node));
  return node;
}

ExprPtr ExpressionParser::Literal(Value v, int line) {
  ExprPtr e = MakeExpr(ExprKind::kLiteral, line);
  e->literal = std::move(v);
  return e;
}

ExprPtr ExpressionParser::ParsePrimary() {
  const Token& t = Cur();
  const int line = t.line;
  switch (t.type) {
    case TokenType::kName: {
      const std::string name = Next().text;
      if (name == "true" || name == "True") return Literal(Value(true), line);
      if (name == "false" || name == "False") return Literal(Value(false), line);
      if (name == "none" || name == "None") return Literal(Value::None(), line);
      if (!macros_.empty()) {
        macros_.back()->uses_varargs |= name == "varargs";
        macros_.back()->uses_kwargs |= name == "kwargs";
        macros_.back()->uses_caller |= name == "caller";
      }
      ExprPtr e = MakeExpr(ExprKind::kName, line);
      e->name = name;
      return e;
    }
    case TokenType::kString: {
      std::string text;
      while (Cur().type == TokenType::kString) text += Next().text;
      return Literal(Value(std::move(text)), line);
    }
    case TokenType::kInteger:
      return Literal(Value(Next().int_value), line);
    case TokenType::kFloat:
      return Literal(Value(Next().float_value), line);
    default:
      break;
  }
  if (SkipOp("(")) {
    ExprPtr e = ParseTuple(true, {}, true);
    ExpectOp(")");
    return e;
  }
  if (SkipOp("[")) {
    ExprPtr e = MakeExpr(ExprKind::kList, line);
    while (!IsOp("]")) {
      if (!e->items.empty()) ExpectOp(",");
      if (IsOp("]")) break;
      e->items.push_back(ParseExpression(true));
    }
    ExpectOp("]");
    return e;
  }
  if (SkipOp("{")) {
    ExprPtr e = MakeExpr(ExprKind::kDict, line);
    while (!IsOp("}")) {
      if (!e->items.empty()) ExpectOp(",");
      if (IsOp("}")) break;
      e->items.push_back(ParseExpression(true));
      ExpectOp(":");
      e->items.push_back(ParseExpression(true));
    }
    ExpectOp("}");
    return e;
  }
  Fail("unexpected '" + Describe(t) + "'");
}

ExprPtr ExpressionParser::ParsePostfix(ExprPtr node) {
  while (true) {
    if (IsOp(".") || IsOp("[")) {
      node = ParseSubscript(std::move(node));
    } else if (IsOp("(")) {
      node = ParseCall(std::move(node));
    } else {
      return node;
    }
  }
}

ExprPtr ExpressionParser::ParseSubscript(ExprPtr node) {
  const Token& t = Next();
  const int line = t.line;
  if (t.text == ".") {
    if (Cur().type == TokenType::kName) {
      ExprPtr e = MakeExpr(ExprKind::kGetAttr, line);
      e->a = std::move(node);
      e->name = Next().text;
      return e;
    }
    if (Cur().type != TokenType::kInteger) Fail("expected name or number");
    ExprPtr e = MakeExpr(ExprKind::kGetItem, line);
    e->a = std::move(node);
    e->b = Literal(Value(Next().int_value), line);
    return e;
  }
  std::vector<ExprPtr> args;
  while (!IsOp("]")) {
    if (!args.empty()) ExpectOp(",");
    args.push_back(ParseSubscribed());
  }
  ExpectOp("]");
  if (args.size() == 1 && args[0]->kind == ExprKind::kSlice && !args[0]->a) {
    args[0]->a = std::move(node);
    return std::move(args[0]);
  }
  ExprPtr e = MakeExpr(ExprKind::kGetItem, line);
  e->a = std::move(node);
  if (args.size() == 1) {
    e->b = std::move(args[0]);
  } else {
    e->b = MakeExpr(ExprKind::kTuple, line);
    e->b->items = std::move(args);
  }
  return e;
}

// expr | [start]:[stop][:[step]] (a slice with no object yet).
ExprPtr ExpressionParser::ParseSubscribed() {
  const int line = Cur().line;
  ExprPtr start;
  if (!IsOp(":")) {
    start = ParseExpression(true);
    if (!IsOp(":")) return start;
  }
  Next();  // ':'
  ExprPtr e = MakeExpr(ExprKind::kSlice, line);
  e->b = std::move(start);
  if (!IsOp(":") && !IsOp("]") && !IsOp(",")) e->c = ParseExpression(true);
  if (SkipOp(":") && !IsOp("]") && !IsOp(",")) e->d = ParseExpression(true);
  return e;
}

CallSyntax ExpressionParser::ParseCallArgs() {
  CallSyntax call;
  const int line = Cur().line;
  ExpectOp("(");
  bool require_comma = false;
  auto ensure = [&](bool ok) {
    if (!ok)
      throw TemplateError(ErrorKind::kSyntax, "invalid syntax for function call expression", line);
  };
  while (!IsOp(")")) {
    if (require_comma) {
      ExpectOp(",");
      if (IsOp(")")) break;
    }
    if (SkipOp("*")) {
      ensure(!call.star_args && !call.star_kwargs);
      call.star_args = ParseExpression(true);
    } else if (SkipOp("**")) {
      ensure(!call.star_kwargs);
      call.star_kwargs = ParseExpression(true);
    } else if (Cur().type == TokenType::kName && Look().type == TokenType::kOperator &&
               Look().text == "=") {
      ensure(!call.star_kwargs);
      std::string key = Next().text;
      Next();
      call.kwargs.emplace_back(std::move(key), ParseExpression(true));
    } else {
      ensure(!call.star_args && !call.star_kwargs && call.kwargs.empty());
      call.args.push_back(ParseExpression(true));
    }
    require_comma = true;
  }
  ExpectOp(")");
  return call;
}

ExprPtr ExpressionParser::ParseCall(ExprPtr node) {
  ExprPtr e = MakeExpr(ExprKind::kCall, Cur().line);
  e->a = std::move(node);
  e->call = ParseCallArgs();
  return e;
}

ExprPtr ExpressionParser::ParseFilterExpr(ExprPtr node) {
  while (true) {
    if (IsOp("|")) {
      node = ParseFilter(std::move(node), false);
    } else if (IsName("is")) {
      node = ParseTest(std::move(node));
    } else if (IsOp("(")) {
      node = ParseCall(std::move(node));
    } else {
      return node;
    }
  }
}

std::string ExpressionParser::DottedName() {
  std::string name = ExpectName();
  while (SkipOp(".")) name += "." + ExpectName();
  return name;
}

ExprPtr ExpressionParser::ParseFilter(ExprPtr node, bool start_inline) {
  while (IsOp("|") || start_inline) {
    if (!start_inline) Next();
    start_inline = false;
    const int line = Cur().line;
    ExprPtr e = MakeExpr(ExprKind::kFilter, line);
    e->name = DottedName();
    CheckAvailable(FilterAvailability(e->name), "filter", e->name, line);
    if (IsOp("(")) e->call = ParseCallArgs();
    e->a = std::move(node);
    node = std::move(e);
  }
  return node;
}

ExprPtr ExpressionParser::ParseTest(ExprPtr node) {
  const int line = Next().line;  // 'is'
  ExprPtr e = MakeExpr(ExprKind::kTest, line);
  e->negated = SkipName("not");
  e->name = DottedName();
  CheckAvailable(TestAvailability(e->name), "test", e->name, line);
  const TokenType type = Cur().type;
  if (IsOp("(")) {
    e->call = ParseCallArgs();
  } else if ((type == TokenType::kName || type == TokenType::kString ||
              type == TokenType::kInteger || type == TokenType::kFloat || IsOp("[") || IsOp("{")) &&
             !IsNameIn({"else", "or", "and"})) {
    if (IsName("is")) Fail("You cannot chain multiple tests with is");
    e->call.args.push_back(ParsePostfix(ParsePrimary()));
  }
  e->a = std::move(node);
  return e;
}

void ExpressionParser::CheckAvailable(Availability a, std::string_view what,
                                      const std::string& name, int line) {
  if (a == Availability::kAvailable) return;
  throw TemplateError(ErrorKind::kUnsupported,
                      a == Availability::kUnknown
                          ? "No " + std::string(what) + " named '" + name + "'"
                          : "the " + std::string(what) + " '" + name + "' is not supported",
                      line);
}

}  // namespace orcd::jinja
