// The parsed template: statements (Node) holding expressions (Expr). One
// plain struct per level rather than a class per construct: the renderer
// switches on the kind, and every node carries its template line for errors.
#ifndef ORCD_HOST_CHAT_JINJA_AST_H_
#define ORCD_HOST_CHAT_JINJA_AST_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "host/chat/jinja/value.h"

namespace orcd::jinja {

struct Expr;
struct Node;
using ExprPtr = std::unique_ptr<Expr>;
using NodePtr = std::unique_ptr<Node>;
using Body = std::vector<NodePtr>;

enum class ExprKind {
  kLiteral,   // literal
  kName,      // name
  kList,      // items
  kTuple,     // items
  kDict,      // items: key, value, key, value, ...
  kGetAttr,   // a.name
  kGetItem,   // a[b]
  kSlice,     // a[start:stop:step]: b, c, d (each may be null)
  kCall,      // a(call)
  kFilter,    // a|name(call); a null: the filter of a filter block / set block
  kTest,      // a is [not] name(call)
  kNeg,       // -a
  kPos,       // +a
  kNot,       // not a
  kBinary,    // a op b (arithmetic)
  kAnd,       // a and b
  kOr,        // a or b
  kConcat,    // items joined with ~
  kCompare,   // a op1 x1 op2 x2 ... (comparisons)
  kCondExpr,  // b if a else c (c may be null)
};

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow };
enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn };

struct CallSyntax {
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  ExprPtr star_args;    // *args
  ExprPtr star_kwargs;  // **kwargs
};

struct Expr {
  Expr() = default;
  // Frees sub-expressions iteratively: "1+1+1+..." nests as deep as the
  // template is long, and a recursive destructor would overflow the stack.
  ~Expr();
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;

  ExprKind kind = ExprKind::kLiteral;
  int line = 0;
  Value literal;
  std::string name;
  std::vector<ExprPtr> items;
  ExprPtr a, b, c, d;
  CallSyntax call;
  BinaryOp binary_op = BinaryOp::kAdd;
  std::vector<std::pair<CompareOp, ExprPtr>> comparisons;
  bool negated = false;  // kTest: "is not"
};

// Left side of set / for / with: one name, names to unpack, or ns.attr.
struct Target {
  std::vector<std::string> names;
  bool unpack = false;    // a, b = ...
  std::string attribute;  // non-empty: names[0].attribute (namespace)
};

// A macro's (or call block's caller's) signature and body.
struct MacroDef {
  std::string name;
  std::vector<std::string> params;
  std::vector<ExprPtr> defaults;  // for the last defaults.size() params
  Body body;
  // Whether the body reads varargs / kwargs / caller: only then does a call
  // accept extra arguments, as in jinja2.
  bool uses_varargs = false;
  bool uses_kwargs = false;
  bool uses_caller = false;
};

enum class NodeKind {
  kData,         // text
  kOutput,       // {{ expr }}
  kIf,           // branches, else_body
  kFor,          // target, expr (iterable), filter, body, else_body
  kSet,          // target = expr
  kSetBlock,     // target, filter (may be null), body
  kMacro,        // macro
  kCallBlock,    // macro (the caller), expr (the call)
  kFilterBlock,  // filter, body
  kWith,         // with_targets, with_values, body
  kScope,        // body rendered in place ({% generation %})
  kBreak,
  kContinue,
};

struct Node {
  NodeKind kind = NodeKind::kData;
  int line = 0;
  std::string text;
  ExprPtr expr;
  ExprPtr filter;
  std::vector<std::pair<ExprPtr, Body>> branches;
  Body body;
  Body else_body;
  Target target;
  std::vector<Target> with_targets;
  std::vector<ExprPtr> with_values;
  std::unique_ptr<MacroDef> macro;
  bool recursive = false;
};

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_AST_H_
