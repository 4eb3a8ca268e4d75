#include "host/chat/jinja/parser.h"

#include <string_view>

#include "host/chat/jinja/expression_parser.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {

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

namespace {

// Statements: {% for %}, {% if %}, {% set %}, {% macro %}, ... and template data.
class Parser : public ExpressionParser {
 public:
  using ExpressionParser::ExpressionParser;

  Body ParseTemplate() {
    Body body = Subparse({});
    if (Cur().type != TokenType::kEof) Fail("unexpected '" + Describe(Cur()) + "'");
    return body;
  }

 private:
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

  int loop_depth_ = 0;
};

}  // namespace

Body Parse(std::vector<Token> tokens) { return Parser(std::move(tokens)).ParseTemplate(); }

}  // namespace orcd::jinja
