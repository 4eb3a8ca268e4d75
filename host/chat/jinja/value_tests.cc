// jinja2's builtin tests (tests.py): `x is defined`, `x is string`, ...
#include <cmath>

#include "host/chat/jinja/call_args.h"
#include "host/chat/jinja/filters.h"
#include "host/chat/jinja/operators.h"
#include "host/chat/jinja/py_string.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

using TestFn = bool (*)(const Value& v, ArgReader& args);

struct TestEntry {
  std::string_view name;
  TestFn fn;
};

bool IsIterable(const Value& v) {
  return v.is_undefined() || v.is_string() || v.is_list() || v.is_dict();
}

Value Other(ArgReader& a) { return a.Require(0, "other"); }

// value % n == 0 with Python's int/float modulo.
bool Divisible(const Value& v, const Value& n) {
  const Value rest = BinaryOperation(BinaryOp::kMod, v, n, 0);
  return rest.is_float() ? rest.AsFloat() == 0.0 : rest.AsInt() == 0;
}

constexpr TestEntry kTests[] = {
    {"boolean", [](const Value& v, ArgReader&) { return v.is_bool(); }},
    {"callable", [](const Value& v, ArgReader&) { return v.is_callable() || v.is_undefined(); }},
    {"defined", [](const Value& v, ArgReader&) { return !v.is_undefined(); }},
    {"divisibleby", [](const Value& v, ArgReader& a) { return Divisible(v, a.Require(0, "num")); }},
    {"eq", [](const Value& v, ArgReader& a) { return PyEquals(v, Other(a)); }},
    {"equalto", [](const Value& v, ArgReader& a) { return PyEquals(v, Other(a)); }},
    {"==", [](const Value& v, ArgReader& a) { return PyEquals(v, Other(a)); }},
    {"escaped", [](const Value&, ArgReader&) { return false; }},
    {"even", [](const Value& v, ArgReader&) { return Divisible(v, Value(2)); }},
    {"false", [](const Value& v, ArgReader&) { return v.is_bool() && !v.AsBool(); }},
    {"filter",
     [](const Value& v, ArgReader&) {
       return v.is_string() && FilterAvailability(v.AsString()) == Availability::kAvailable;
     }},
    {"float", [](const Value& v, ArgReader&) { return v.is_float(); }},
    {"ge", [](const Value& v, ArgReader& a) { return Compare(CompareOp::kGe, v, Other(a)); }},
    {">=", [](const Value& v, ArgReader& a) { return Compare(CompareOp::kGe, v, Other(a)); }},
    {"gt", [](const Value& v, ArgReader& a) { return Compare(CompareOp::kGt, v, Other(a)); }},
    {"greaterthan",
     [](const Value& v, ArgReader& a) { return Compare(CompareOp::kGt, v, Other(a)); }},
    {">", [](const Value& v, ArgReader& a) { return Compare(CompareOp::kGt, v, Other(a)); }},
    {"in", [](const Value& v, ArgReader& a) { return Contains(a.Require(0, "seq"), v); }},
    {"integer", [](const Value& v, ArgReader&) { return v.is_int(); }},
    {"iterable", [](const Value& v, ArgReader&) { return IsIterable(v); }},
    {"le", [](const Value& v, ArgReader& a) { return Compare(CompareOp::kLe, v, Other(a)); }},
    {"<=", [](const Value& v, ArgReader& a) { return Compare(CompareOp::kLe, v, Other(a)); }},
    {"lower", [](const Value& v, ArgReader&) { return PyIsLower(ToStr(v)); }},
    {"lt", [](const Value& v, ArgReader& a) { return Compare(CompareOp::kLt, v, Other(a)); }},
    {"lessthan", [](const Value& v, ArgReader& a) { return Compare(CompareOp::kLt, v, Other(a)); }},
    {"<", [](const Value& v, ArgReader& a) { return Compare(CompareOp::kLt, v, Other(a)); }},
    {"mapping", [](const Value& v, ArgReader&) { return v.is_dict(); }},
    {"ne", [](const Value& v, ArgReader& a) { return !PyEquals(v, Other(a)); }},
    {"!=", [](const Value& v, ArgReader& a) { return !PyEquals(v, Other(a)); }},
    {"none", [](const Value& v, ArgReader&) { return v.is_none(); }},
    {"number", [](const Value& v, ArgReader&) { return v.is_number(); }},
    {"odd", [](const Value& v, ArgReader&) { return !Divisible(v, Value(2)); }},
    {"sameas", [](const Value& v, ArgReader& a) { return v.SameAs(Other(a)); }},
    {"sequence",
     [](const Value& v, ArgReader&) {
       return v.is_undefined() || v.is_string() || v.is_list() || v.is_dict();
     }},
    {"string", [](const Value& v, ArgReader&) { return v.is_string(); }},
    {"test",
     [](const Value& v, ArgReader&) {
       return v.is_string() && TestAvailability(v.AsString()) == Availability::kAvailable;
     }},
    {"true", [](const Value& v, ArgReader&) { return v.is_bool() && v.AsBool(); }},
    {"undefined", [](const Value& v, ArgReader&) { return v.is_undefined(); }},
    {"upper", [](const Value& v, ArgReader&) { return PyIsUpper(ToStr(v)); }},
};

TestFn FindTest(std::string_view name) {
  for (const TestEntry& t : kTests) {
    if (t.name == name) return t.fn;
  }
  return nullptr;
}

}  // namespace

Availability TestAvailability(std::string_view name) {
  return FindTest(name) != nullptr ? Availability::kAvailable : Availability::kUnknown;
}

bool ApplyTest(Renderer& /*renderer*/, std::string_view name, const Value& operand,
               const CallArgs& args) {
  const TestFn fn = FindTest(name);
  if (fn == nullptr)
    throw TemplateError(ErrorKind::kUnsupported, "No test named '" + std::string(name) + "'");
  ArgReader reader(name, args);
  const bool result = fn(operand, reader);
  reader.Finish();
  return result;
}

}  // namespace orcd::jinja
