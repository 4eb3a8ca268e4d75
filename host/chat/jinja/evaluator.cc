// Expression evaluation of the Renderer (statements are in renderer.cc).
#include "host/chat/jinja/filters.h"
#include "host/chat/jinja/globals.h"
#include "host/chat/jinja/operators.h"
#include "host/chat/jinja/renderer.h"
#include "host/chat/jinja/scope.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {

Value Renderer::Lookup(std::string_view name) const {
  if (const Value* v = scope_->Find(name)) return *v;
  if (const Value* g = FindGlobal(name)) return *g;
  return Value::Undefined("'" + std::string(name) + "' is undefined");
}

// Accounts for what a builtin or operator built; refuses oversized strings.
Value Renderer::Checked(Value v) {
  if (v.is_string()) {
    if (v.AsString().size() > max_bytes()) {
      throw TemplateError(ErrorKind::kLimit,
                          "a string grew past " + std::to_string(max_bytes()) + " bytes");
    }
    ChargeWork(v.AsString().size());
  } else if (v.is_list()) {
    if (v.AsList().size() * sizeof(Value) > max_bytes()) {
      throw TemplateError(ErrorKind::kLimit,
                          "a list grew past " + std::to_string(max_bytes()) + " bytes");
    }
    ChargeWork(v.AsList().size() * sizeof(Value));
  } else if (v.is_dict()) {
    ChargeWork(v.AsDict().size() * (sizeof(Value) + 32));
  }
  return v;
}

Value Renderer::Eval(const Expr& e) {
  NestingGuard guard(*this);
  try {
    return EvalInner(e);
  } catch (const TemplateError& err) {
    if (err.line() == 0) throw err.WithLine(e.line);
    throw;
  }
}

CallArgs Renderer::EvalArgs(const CallSyntax& call) {
  CallArgs args;
  for (const ExprPtr& a : call.args) args.positional.push_back(Eval(*a));
  if (call.star_args) {
    for (Value& v : Iterate(Eval(*call.star_args))) args.positional.push_back(std::move(v));
  }
  for (const auto& [key, expr] : call.kwargs) args.keywords.emplace_back(key, Eval(*expr));
  if (call.star_kwargs) {
    const Value extra = Eval(*call.star_kwargs);
    if (!extra.is_dict()) {
      throw TemplateError(ErrorKind::kType,
                          "argument after ** must be a mapping, not " + TypeName(extra));
    }
    for (const auto& [key, value] : extra.AsDict().entries())
      args.keywords.emplace_back(key, value);
  }
  return args;
}

Value Renderer::EvalCall(const Expr& e, const Value* caller) {
  const Value callee = Eval(*e.a);
  CallArgs args = EvalArgs(e.call);
  if (caller != nullptr) args.keywords.emplace_back("caller", *caller);
  return Checked(Call(callee, std::move(args)));
}

// input: the text of a filter block or set block, for the innermost filter
// of the chain (the one without an operand).
Value Renderer::EvalFilter(const Expr& e, const Value* input) {
  NestingGuard guard(*this);
  Value operand;
  if (!e.a) {
    operand = *input;
  } else if (e.a->kind == ExprKind::kFilter) {
    operand = EvalFilter(*e.a, input);
  } else {
    operand = Eval(*e.a);
  }
  return Checked(ApplyFilter(*this, e.name, operand, EvalArgs(e.call)));
}

Value Renderer::EvalInner(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kLiteral:
      return e.literal;
    case ExprKind::kName:
      return Lookup(e.name);
    case ExprKind::kList:
    case ExprKind::kTuple: {
      ValueList items;
      items.reserve(e.items.size());
      for (const ExprPtr& item : e.items) items.push_back(Eval(*item));
      return e.kind == ExprKind::kList ? Value::List(std::move(items))
                                       : Value::Tuple(std::move(items));
    }
    case ExprKind::kDict: {
      Dict dict;
      for (size_t i = 0; i + 1 < e.items.size(); i += 2) {
        const Value key = Eval(*e.items[i]);
        if (!key.is_string()) {
          throw TemplateError(ErrorKind::kUnsupported,
                              "dict keys must be strings, not " + TypeName(key));
        }
        dict.Set(key.AsString(), Eval(*e.items[i + 1]));
      }
      return Value::FromDict(std::move(dict));
    }
    case ExprKind::kGetAttr:
      return GetAttr(Eval(*e.a), e.name);
    case ExprKind::kGetItem: {
      const Value obj = Eval(*e.a);
      return GetItem(obj, Eval(*e.b));
    }
    case ExprKind::kSlice: {
      const Value obj = Eval(*e.a);
      const Value start = e.b ? Eval(*e.b) : Value();
      const Value stop = e.c ? Eval(*e.c) : Value();
      const Value step = e.d ? Eval(*e.d) : Value();
      return Checked(GetSlice(obj, start, stop, step));
    }
    case ExprKind::kCall:
      return EvalCall(e, nullptr);
    case ExprKind::kFilter:
      return EvalFilter(e, nullptr);
    case ExprKind::kTest: {
      const Value operand = Eval(*e.a);
      const bool result = ApplyTest(*this, e.name, operand, EvalArgs(e.call));
      return Value(e.negated ? !result : result);
    }
    case ExprKind::kNeg:
      return Negate(Eval(*e.a));
    case ExprKind::kPos:
      return Positive(Eval(*e.a));
    case ExprKind::kNot:
      return Value(!Truthy(Eval(*e.a)));
    case ExprKind::kBinary: {
      const Value left = Eval(*e.a);
      const Value right = Eval(*e.b);
      return Checked(BinaryOperation(e.binary_op, left, right, max_bytes()));
    }
    case ExprKind::kAnd: {
      Value left = Eval(*e.a);
      return Truthy(left) ? Eval(*e.b) : left;
    }
    case ExprKind::kOr: {
      Value left = Eval(*e.a);
      return Truthy(left) ? left : Eval(*e.b);
    }
    case ExprKind::kConcat: {
      std::string out;
      for (const ExprPtr& item : e.items) {
        out += ToStr(Eval(*item));
        if (out.size() > max_bytes())
          throw TemplateError(ErrorKind::kLimit, "string result too large");
      }
      return Checked(Value(std::move(out)));
    }
    case ExprKind::kCompare: {
      Value left = Eval(*e.a);
      for (const auto& [op, expr] : e.comparisons) {
        Value right = Eval(*expr);
        if (!Compare(op, left, right)) return Value(false);
        left = std::move(right);
      }
      return Value(true);
    }
    case ExprKind::kCondExpr:
      if (Truthy(Eval(*e.a))) return Eval(*e.b);
      if (e.c) return Eval(*e.c);
      return Value::Undefined("the inline if-expression on line " + std::to_string(e.line) +
                              " evaluated to false and no else section was defined.");
  }
  return Value();
}

}  // namespace orcd::jinja
