#include "host/chat/jinja/parser.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "host/chat/jinja/filters.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

using Names = std::initializer_list<std::string_view>;

std::string Describe(const Token& t) {
  switch (t.type) {
    case TokenType::kEof:
      return "end of template";
    case TokenType::kBlockEnd:
      return "end of statement block";
    case TokenType::kVariableEnd:
      return "end of print statement";
    case TokenType::kBlockBegin:
      return "begin of statement block";
    case TokenType::kVariableBegin:
      return "begin of print statement";
    case TokenType::kData:
      return "template data";
    case TokenType::kString:
      return "string";
    default:
      return t.text;
  }
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  Body ParseTemplate() {
    Body body = Subparse({});
    if (Cur().type != TokenType::kEof) Fail("unexpected '" + Describe(Cur()) + "'");
    return body;
  }

 private:
  // Bounds recursion through statements and expressions.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser& p) : p_(p) {
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
    Parser& p_;
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

  // ---- statements ----

  Body Subparse(Names end_tags) {
    Body body;
    while (true) {
      const Token& t = Cur();
      if (t.type == TokenType::kData) {
        NodePtr n = MakeNode(NodeKind::kData, t.line);
        n->text = t.text;
        body.push_back(std::move(n));
        Next();
      } else if (t.type == TokenType::kVariableBegin) {
        Next();
        NodePtr n = MakeNode(NodeKind::kOutput, t.line);
        n->expr = ParseTuple(true, {}, false);
        Expect(TokenType::kVariableEnd, "end of print statement");
        body.push_back(std::move(n));
      } else if (t.type == TokenType::kBlockBegin) {
        Next();
        if (end_tags.size() > 0 && IsNameIn(end_tags)) return body;
        body.push_back(ParseStatement());
        Expect(TokenType::kBlockEnd, "end of statement block");
      } else if (t.type == TokenType::kEof) {
        return body;
      } else {
        Fail("unexpected '" + Describe(t) + "'");
      }
    }
  }

  Body ParseStatements(Names end_tags, bool drop_needle, std::string_view opener, int opener_line) {
    SkipOp(":");
    Expect(TokenType::kBlockEnd, "end of statement block");
    Body body = Subparse(end_tags);
    if (Cur().type == TokenType::kEof) {
      std::string wanted;
      for (const std::string_view tag : end_tags) {
        wanted += (wanted.empty() ? "'" : " or '") + std::string(tag) + "'";
      }
      Fail("unexpected end of template: looking for " + wanted + " to close the '" +
           std::string(opener) + "' on line " + std::to_string(opener_line));
    }
    if (drop_needle) Next();
    return body;
  }

  NodePtr ParseStatement() {
    DepthGuard guard(*this);
    const Token& t = Cur();
    if (t.type != TokenType::kName) Fail("tag name expected");
    const std::string& tag = t.text;
    if (tag == "for") return ParseFor();
    if (tag == "if") return ParseIf();
    if (tag == "set") return ParseSet();
    if (tag == "macro") return ParseMacro();
    if (tag == "call") return ParseCallBlock();
    if (tag == "filter") return ParseFilterBlock();
    if (tag == "with") return ParseWith();
    if (tag == "generation") return ParseScope("endgeneration");
    if (tag == "print") return ParsePrint();
    if (tag == "break" || tag == "continue") {
      if (loop_depth_ == 0) Fail("'" + tag + "' outside of a for loop");
      NodePtr n = MakeNode(tag == "break" ? NodeKind::kBreak : NodeKind::kContinue, t.line);
      Next();
      return n;
    }
    for (const std::string_view file_tag : {"include", "import", "from", "extends", "block"}) {
      if (tag == file_tag) {
        throw TemplateError(ErrorKind::kUnsupported,
                            "'" + tag +
                                "' is not supported: a chat template cannot load or "
                                "extend other templates",
                            t.line);
      }
    }
    for (const std::string_view other : {"autoescape", "do", "trans", "pluralize"}) {
      if (tag == other) {
        throw TemplateError(ErrorKind::kUnsupported, "the '" + tag + "' tag is not supported",
                            t.line);
      }
    }
    Fail("Encountered unknown tag '" + tag + "'");
  }

  NodePtr ParseFor() {
    NodePtr n = MakeNode(NodeKind::kFor, Next().line);
    n->target = ParseAssignTarget({"in"}, false);
    if (!SkipName("in")) Fail("expected 'in', got '" + Describe(Cur()) + "'");
    n->expr = ParseTuple(false, {"recursive"}, false);
    if (SkipName("if")) n->filter = ParseExpression(true);
    if (IsName("recursive")) {
      throw TemplateError(ErrorKind::kUnsupported, "recursive for loops are not supported",
                          Cur().line);
    }
    ++loop_depth_;
    n->body = ParseStatements({"endfor", "else"}, false, "for", n->line);
    --loop_depth_;
    if (Next().text == "else") {
      n->else_body = ParseStatements({"endfor"}, true, "for", n->line);
    }
    return n;
  }

  NodePtr ParseIf() {
    NodePtr n = MakeNode(NodeKind::kIf, Next().line);
    while (true) {
      ExprPtr cond = ParseTuple(false, {}, false);
      Body body = ParseStatements({"elif", "else", "endif"}, false, "if", n->line);
      n->branches.emplace_back(std::move(cond), std::move(body));
      const std::string& tag = Next().text;
      if (tag == "elif") continue;
      if (tag == "else") n->else_body = ParseStatements({"endif"}, true, "if", n->line);
      return n;
    }
  }

  NodePtr ParseSet() {
    const int line = Next().line;
    Target target = ParseAssignTarget({}, true);
    if (SkipOp("=")) {
      NodePtr n = MakeNode(NodeKind::kSet, line);
      n->target = std::move(target);
      n->expr = ParseTuple(true, {}, false);
      return n;
    }
    NodePtr n = MakeNode(NodeKind::kSetBlock, line);
    n->target = std::move(target);
    if (IsOp("|")) n->filter = ParseFilter(nullptr, false);
    n->body = ParseStatements({"endset"}, true, "set", line);
    return n;
  }

  void ParseSignature(MacroDef& def) {
    ExpectOp("(");
    while (!IsOp(")")) {
      if (!def.params.empty()) ExpectOp(",");
      def.params.push_back(ExpectName());
      if (SkipOp("=")) {
        def.defaults.push_back(ParseExpression(true));
      } else if (!def.defaults.empty()) {
        Fail("non-default argument follows default argument");
      }
    }
    ExpectOp(")");
  }

  // The body of a macro or caller: break/continue do not reach outer loops.
  void ParseMacroBody(MacroDef& def, std::string_view end_tag, std::string_view opener, int line) {
    const int saved_loops = loop_depth_;
    loop_depth_ = 0;
    macros_.push_back(&def);
    def.body = ParseStatements({end_tag}, true, opener, line);
    macros_.pop_back();
    loop_depth_ = saved_loops;
  }

  NodePtr ParseMacro() {
    NodePtr n = MakeNode(NodeKind::kMacro, Next().line);
    n->macro = std::make_unique<MacroDef>();
    n->macro->name = ExpectName();
    ParseSignature(*n->macro);
    ParseMacroBody(*n->macro, "endmacro", "macro", n->line);
    return n;
  }

  NodePtr ParseCallBlock() {
    NodePtr n = MakeNode(NodeKind::kCallBlock, Next().line);
    n->macro = std::make_unique<MacroDef>();
    n->macro->name = "caller";
    if (IsOp("(")) ParseSignature(*n->macro);
    n->expr = ParseExpression(true);
    if (n->expr->kind != ExprKind::kCall) Fail("expected a call after 'call'");
    ParseMacroBody(*n->macro, "endcall", "call", n->line);
    return n;
  }

  NodePtr ParseFilterBlock() {
    NodePtr n = MakeNode(NodeKind::kFilterBlock, Next().line);
    n->filter = ParseFilter(nullptr, true);
    n->body = ParseStatements({"endfilter"}, true, "filter", n->line);
    return n;
  }

  NodePtr ParseWith() {
    NodePtr n = MakeNode(NodeKind::kWith, Next().line);
    while (Cur().type != TokenType::kBlockEnd) {
      if (!n->with_targets.empty()) ExpectOp(",");
      n->with_targets.push_back(ParseAssignTarget({}, false));
      ExpectOp("=");
      n->with_values.push_back(ParseExpression(true));
    }
    n->body = ParseStatements({"endwith"}, true, "with", n->line);
    return n;
  }

  NodePtr ParseScope(std::string_view end_tag) {
    NodePtr n = MakeNode(NodeKind::kScope, Next().line);
    n->body = ParseStatements({end_tag}, true, "generation", n->line);
    return n;
  }

  NodePtr ParsePrint() {
    NodePtr n = MakeNode(NodeKind::kScope, Next().line);
    while (Cur().type != TokenType::kBlockEnd) {
      if (!n->body.empty()) ExpectOp(",");
      NodePtr out = MakeNode(NodeKind::kOutput, Cur().line);
      out->expr = ParseExpression(true);
      n->body.push_back(std::move(out));
    }
    return n;
  }

  bool IsTupleEnd(Names extra_end) const {
    const TokenType type = Cur().type;
    if (type == TokenType::kVariableEnd || type == TokenType::kBlockEnd || IsOp(")")) return true;
    return extra_end.size() > 0 && IsNameIn(extra_end);
  }

  // name | a, b, ... | (a, b) | ns.attr (with_namespace).
  Target ParseAssignTarget(Names extra_end, bool with_namespace) {
    Target target;
    const bool parenthesized = SkipOp("(");
    while (true) {
      if (!target.names.empty()) ExpectOp(",");
      if (IsTupleEnd(extra_end)) break;
      const int line = Cur().line;
      std::string name = ExpectName();
      if (name == "true" || name == "false" || name == "none" || name == "True" ||
          name == "False" || name == "None") {
        throw TemplateError(ErrorKind::kSyntax, "can't assign to '" + name + "'", line);
      }
      target.names.push_back(std::move(name));
      if (with_namespace && IsOp(".")) {
        Next();
        target.attribute = ExpectName();
      }
      if (!IsOp(",")) break;
      target.unpack = true;
    }
    if (parenthesized) {
      ExpectOp(")");
      target.unpack = true;
    }
    if (target.names.empty()) Fail("expected an assignment target");
    if (!target.attribute.empty() && target.names.size() > 1) {
      Fail("a namespace attribute cannot be assigned as part of a tuple");
    }
    return target;
  }

  // ---- expressions ----

  ExprPtr ParseTuple(bool with_condexpr, Names extra_end, bool explicit_parens) {
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

  ExprPtr ParseExpression(bool with_condexpr) {
    return with_condexpr ? ParseCondExpr() : ParseOr();
  }

  ExprPtr ParseCondExpr() {
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

  ExprPtr Binary(ExprKind kind, ExprPtr left, ExprPtr right, int line) {
    ExprPtr e = MakeExpr(kind, line);
    e->a = std::move(left);
    e->b = std::move(right);
    return e;
  }

  ExprPtr ParseOr() {
    ExprPtr left = ParseAnd();
    while (IsName("or")) {
      const int line = Next().line;
      left = Binary(ExprKind::kOr, std::move(left), ParseAnd(), line);
    }
    return left;
  }

  ExprPtr ParseAnd() {
    ExprPtr left = ParseNot();
    while (IsName("and")) {
      const int line = Next().line;
      left = Binary(ExprKind::kAnd, std::move(left), ParseNot(), line);
    }
    return left;
  }

  ExprPtr ParseNot() {
    if (IsName("not")) {
      DepthGuard guard(*this);
      ExprPtr e = MakeExpr(ExprKind::kNot, Next().line);
      e->a = ParseNot();
      return e;
    }
    return ParseCompare();
  }

  ExprPtr ParseCompare() {
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

  ExprPtr Arith(BinaryOp op, ExprPtr left, ExprPtr right, int line) {
    ExprPtr e = Binary(ExprKind::kBinary, std::move(left), std::move(right), line);
    e->binary_op = op;
    return e;
  }

  ExprPtr ParseMath1() {
    ExprPtr left = ParseConcat();
    while (IsOp("+") || IsOp("-")) {
      const Token& t = Next();
      const BinaryOp op = t.text == "+" ? BinaryOp::kAdd : BinaryOp::kSub;
      left = Arith(op, std::move(left), ParseConcat(), t.line);
    }
    return left;
  }

  ExprPtr ParseConcat() {
    const int line = Cur().line;
    ExprPtr first = ParseMath2();
    if (!IsOp("~")) return first;
    ExprPtr e = MakeExpr(ExprKind::kConcat, line);
    e->items.push_back(std::move(first));
    while (SkipOp("~")) e->items.push_back(ParseMath2());
    return e;
  }

  ExprPtr ParseMath2() {
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

  ExprPtr ParsePow() {
    ExprPtr left = ParseUnary(true);
    while (IsOp("**")) {
      const int line = Next().line;
      left = Arith(BinaryOp::kPow, std::move(left), ParseUnary(true), line);
    }
    return left;
  }

  ExprPtr ParseUnary(bool with_filter) {
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

  ExprPtr Literal(Value v, int line) {
    ExprPtr e = MakeExpr(ExprKind::kLiteral, line);
    e->literal = std::move(v);
    return e;
  }

  ExprPtr ParsePrimary() {
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

  ExprPtr ParsePostfix(ExprPtr node) {
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

  ExprPtr ParseSubscript(ExprPtr node) {
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
  ExprPtr ParseSubscribed() {
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

  CallSyntax ParseCallArgs() {
    CallSyntax call;
    const int line = Cur().line;
    ExpectOp("(");
    bool require_comma = false;
    auto ensure = [&](bool ok) {
      if (!ok)
        throw TemplateError(ErrorKind::kSyntax, "invalid syntax for function call expression",
                            line);
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

  ExprPtr ParseCall(ExprPtr node) {
    ExprPtr e = MakeExpr(ExprKind::kCall, Cur().line);
    e->a = std::move(node);
    e->call = ParseCallArgs();
    return e;
  }

  ExprPtr ParseFilterExpr(ExprPtr node) {
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

  std::string DottedName() {
    std::string name = ExpectName();
    while (SkipOp(".")) name += "." + ExpectName();
    return name;
  }

  ExprPtr ParseFilter(ExprPtr node, bool start_inline) {
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

  ExprPtr ParseTest(ExprPtr node) {
    const int line = Next().line;  // 'is'
    ExprPtr e = MakeExpr(ExprKind::kTest, line);
    e->negated = SkipName("not");
    e->name = DottedName();
    CheckAvailable(TestAvailability(e->name), "test", e->name, line);
    const TokenType type = Cur().type;
    if (IsOp("(")) {
      e->call = ParseCallArgs();
    } else if ((type == TokenType::kName || type == TokenType::kString ||
                type == TokenType::kInteger || type == TokenType::kFloat || IsOp("[") ||
                IsOp("{")) &&
               !IsNameIn({"else", "or", "and"})) {
      if (IsName("is")) Fail("You cannot chain multiple tests with is");
      e->call.args.push_back(ParsePostfix(ParsePrimary()));
    }
    e->a = std::move(node);
    return e;
  }

  static void CheckAvailable(Availability a, std::string_view what, const std::string& name,
                             int line) {
    if (a == Availability::kAvailable) return;
    throw TemplateError(ErrorKind::kUnsupported,
                        a == Availability::kUnknown
                            ? "No " + std::string(what) + " named '" + name + "'"
                            : "the " + std::string(what) + " '" + name + "' is not supported",
                        line);
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  int depth_ = 0;
  int loop_depth_ = 0;
  std::vector<MacroDef*> macros_;
};

}  // namespace

Body Parse(std::vector<Token> tokens) { return Parser(std::move(tokens)).ParseTemplate(); }

}  // namespace orcd::jinja
