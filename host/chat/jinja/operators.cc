#include "host/chat/jinja/operators.h"

#include <cmath>
#include <limits>

#include "host/chat/jinja/methods.h"
#include "host/chat/jinja/py_format.h"
#include "host/chat/jinja/py_string.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

constexpr int kMaxCompareDepth = 512;

[[noreturn]] void TypeError(const std::string& message) {
  throw TemplateError(ErrorKind::kType, message);
}
[[noreturn]] void Overflow() {
  throw TemplateError(ErrorKind::kLimit, "integer result out of the 64-bit range");
}

// jinja2's object_type_repr: "dict object", "None".
std::string ObjectTypeRepr(const Value& v) {
  if (v.is_none()) return "None";
  return TypeName(v) + " object";
}

Value MissingAttribute(const Value& obj, std::string_view name) {
  return Value::Undefined("'" + ObjectTypeRepr(obj) + "' has no attribute '" + std::string(name) +
                          "'");
}

Value MissingElement(const Value& obj, const Value& key) {
  return Value::Undefined(ObjectTypeRepr(obj) + " has no element " + Repr(key));
}

const char* OpSymbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kFloorDiv:
      return "//";
    case BinaryOp::kMod:
      return "%";
    case BinaryOp::kPow:
      return "**";
  }
  return "?";
}

[[noreturn]] void Unsupported(BinaryOp op, const Value& a, const Value& b) {
  TypeError(std::string("unsupported operand type(s) for ") + OpSymbol(op) + ": '" + TypeName(a) +
            "' and '" + TypeName(b) + "'");
}

[[noreturn]] void ZeroDivision(const char* what) {
  throw TemplateError(ErrorKind::kValue, std::string("ZeroDivisionError: ") + what);
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  if (b == 0) ZeroDivision("integer division or modulo by zero");
  if (a == std::numeric_limits<int64_t>::min() && b == -1) Overflow();
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t ModInt(int64_t a, int64_t b) {
  if (b == 0) ZeroDivision("integer division or modulo by zero");
  if (b == -1) return 0;
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

// CPython's float_divmod.
std::pair<double, double> DivModFloat(double vx, double wx) {
  if (wx == 0.0) ZeroDivision("float division by zero");
  double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0.0) {
    if ((wx < 0) != (mod < 0)) {
      mod += wx;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, wx);
  }
  double floordiv = 0;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, vx / wx);
  }
  return {floordiv, mod};
}

Value PowInt(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 0) ZeroDivision("0.0 cannot be raised to a negative power");
    return Value(std::pow(static_cast<double>(base), static_cast<double>(exp)));
  }
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1) {
      if (__builtin_mul_overflow(result, base, &result)) Overflow();
    }
    exp >>= 1;
    if (exp > 0 && __builtin_mul_overflow(base, base, &base)) Overflow();
  }
  return Value(result);
}

Value Repeat(const Value& seq, int64_t n, size_t max_bytes) {
  if (n <= 0)
    return seq.is_string() ? Value("") : seq.is_tuple() ? Value::Tuple({}) : Value::List({});
  const size_t unit = seq.is_string() ? seq.AsString().size() : seq.AsList().size() * sizeof(Value);
  if (unit > 0 && static_cast<uint64_t>(n) > max_bytes / unit) {
    throw TemplateError(ErrorKind::kLimit, "repetition result too large");
  }
  const auto count = static_cast<size_t>(n);
  if (seq.is_string()) {
    std::string out;
    out.reserve(seq.AsString().size() * count);
    for (size_t i = 0; i < count; ++i) out += seq.AsString();
    return Value(std::move(out));
  }
  ValueList out;
  for (size_t i = 0; i < count; ++i)
    out.insert(out.end(), seq.AsList().begin(), seq.AsList().end());
  return seq.is_tuple() ? Value::Tuple(std::move(out)) : Value::List(std::move(out));
}

bool EqualsAt(const Value& a, const Value& b, int depth) {
  if (depth > kMaxCompareDepth)
    throw TemplateError(ErrorKind::kLimit, "values nest too deeply to compare");
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.AsFloat() == b.AsFloat();
    return a.AsInt() == b.AsInt();
  }
  if (a.kind() != b.kind()) return false;
  if (a.SameAs(b)) return true;  // Python compares items by identity first
  switch (a.kind()) {
    case Value::Kind::kUndefined:
    case Value::Kind::kNone:
      return true;
    case Value::Kind::kString:
      return a.AsString() == b.AsString();
    case Value::Kind::kList: {
      if (a.is_tuple() != b.is_tuple() || a.AsList().size() != b.AsList().size()) return false;
      for (size_t i = 0; i < a.AsList().size(); ++i) {
        if (!EqualsAt(a.AsList()[i], b.AsList()[i], depth + 1)) return false;
      }
      return true;
    }
    case Value::Kind::kDict: {
      if (a.AsDict().size() != b.AsDict().size()) return false;
      for (const auto& [key, value] : a.AsDict().entries()) {
        const Value* other = b.AsDict().Find(key);
        if (other == nullptr || !EqualsAt(value, *other, depth + 1)) return false;
      }
      return true;
    }
    default:
      return a.SameAs(b);
  }
}

bool LessAt(const Value& a, const Value& b, int depth) {
  if (depth > kMaxCompareDepth)
    throw TemplateError(ErrorKind::kLimit, "values nest too deeply to compare");
  RequireDefined(a);
  RequireDefined(b);
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.AsFloat() < b.AsFloat();
    return a.AsInt() < b.AsInt();
  }
  if (a.is_string() && b.is_string())
    return a.AsString() < b.AsString();  // UTF-8 keeps code point order
  if (a.is_list() && b.is_list() && a.is_tuple() == b.is_tuple()) {
    const ValueList& x = a.AsList();
    const ValueList& y = b.AsList();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!EqualsAt(x[i], y[i], depth + 1)) return LessAt(x[i], y[i], depth + 1);
    }
    return x.size() < y.size();
  }
  TypeError("'<' not supported between instances of '" + TypeName(a) + "' and '" + TypeName(b) +
            "'");
}

std::optional<int64_t> SliceBound(const Value& v) {
  if (v.is_undefined() || v.is_none()) return std::nullopt;
  return v.AsInt();
}

bool IsSliceBound(const Value& v) { return v.is_undefined() || v.is_none() || v.is_integral(); }

}  // namespace

void RequireDefined(const Value& v) {
  if (!v.is_undefined()) return;
  throw TemplateError(ErrorKind::kUndefined,
                      v.undefined_hint().empty() ? "undefined value" : v.undefined_hint());
}

Value BinaryOperation(BinaryOp op, const Value& a, const Value& b, size_t max_bytes) {
  RequireDefined(a);
  RequireDefined(b);
  const bool ints = a.is_integral() && b.is_integral();
  const bool nums = a.is_number() && b.is_number();
  switch (op) {
    case BinaryOp::kAdd:
      if (ints) {
        int64_t r = 0;
        if (__builtin_add_overflow(a.AsInt(), b.AsInt(), &r)) Overflow();
        return Value(r);
      }
      if (nums) return Value(a.AsFloat() + b.AsFloat());
      if (a.is_string() && b.is_string()) {
        if (a.AsString().size() + b.AsString().size() > max_bytes) {
          throw TemplateError(ErrorKind::kLimit, "string result too large");
        }
        return Value(a.AsString() + b.AsString());
      }
      if (a.is_list() && b.is_list() && a.is_tuple() == b.is_tuple()) {
        if ((a.AsList().size() + b.AsList().size()) * sizeof(Value) > max_bytes) {
          throw TemplateError(ErrorKind::kLimit, "list result too large");
        }
        ValueList out = a.AsList();
        out.insert(out.end(), b.AsList().begin(), b.AsList().end());
        return a.is_tuple() ? Value::Tuple(std::move(out)) : Value::List(std::move(out));
      }
      if (a.is_string()) TypeError("can only concatenate str (not \"" + TypeName(b) + "\") to str");
      if (a.is_list()) {
        TypeError("can only concatenate " + TypeName(a) + " (not \"" + TypeName(b) + "\") to " +
                  TypeName(a));
      }
      Unsupported(op, a, b);
    case BinaryOp::kSub:
      if (ints) {
        int64_t r = 0;
        if (__builtin_sub_overflow(a.AsInt(), b.AsInt(), &r)) Overflow();
        return Value(r);
      }
      if (nums) return Value(a.AsFloat() - b.AsFloat());
      Unsupported(op, a, b);
    case BinaryOp::kMul:
      if (ints) {
        int64_t r = 0;
        if (__builtin_mul_overflow(a.AsInt(), b.AsInt(), &r)) Overflow();
        return Value(r);
      }
      if (nums) return Value(a.AsFloat() * b.AsFloat());
      if ((a.is_string() || a.is_list()) && b.is_integral()) return Repeat(a, b.AsInt(), max_bytes);
      if ((b.is_string() || b.is_list()) && a.is_integral()) return Repeat(b, a.AsInt(), max_bytes);
      Unsupported(op, a, b);
    case BinaryOp::kDiv:
      if (nums) {
        if (b.AsFloat() == 0.0) ZeroDivision("division by zero");
        return Value(a.AsFloat() / b.AsFloat());
      }
      Unsupported(op, a, b);
    case BinaryOp::kFloorDiv:
      if (ints) return Value(FloorDivInt(a.AsInt(), b.AsInt()));
      if (nums) return Value(DivModFloat(a.AsFloat(), b.AsFloat()).first);
      Unsupported(op, a, b);
    case BinaryOp::kMod:
      if (ints) return Value(ModInt(a.AsInt(), b.AsInt()));
      if (nums) return Value(DivModFloat(a.AsFloat(), b.AsFloat()).second);
      if (a.is_string()) return Value(PercentFormat(a.AsString(), b));
      Unsupported(op, a, b);
    case BinaryOp::kPow:
      if (ints) return PowInt(a.AsInt(), b.AsInt());
      if (nums) {
        const double x = a.AsFloat();
        const double y = b.AsFloat();
        if (x == 0.0 && y < 0) ZeroDivision("0.0 cannot be raised to a negative power");
        if (x < 0 && y != std::floor(y)) {
          throw TemplateError(ErrorKind::kValue,
                              "a negative number to a fractional power is complex");
        }
        return Value(std::pow(x, y));
      }
      Unsupported(op, a, b);
  }
  Unsupported(op, a, b);
}

Value Negate(const Value& v) {
  RequireDefined(v);
  if (v.is_integral()) {
    if (v.AsInt() == std::numeric_limits<int64_t>::min()) Overflow();
    return Value(-v.AsInt());
  }
  if (v.is_float()) return Value(-v.AsFloat());
  TypeError("bad operand type for unary -: '" + TypeName(v) + "'");
}

Value Positive(const Value& v) {
  RequireDefined(v);
  if (v.is_integral()) return Value(v.AsInt());
  if (v.is_float()) return v;
  TypeError("bad operand type for unary +: '" + TypeName(v) + "'");
}

bool PyEquals(const Value& a, const Value& b) { return EqualsAt(a, b, 0); }
bool PyLess(const Value& a, const Value& b) { return LessAt(a, b, 0); }

bool Compare(CompareOp op, const Value& a, const Value& b) {
  switch (op) {
    case CompareOp::kEq:
      return PyEquals(a, b);
    case CompareOp::kNe:
      return !PyEquals(a, b);
    case CompareOp::kLt:
      return PyLess(a, b);
    case CompareOp::kLe:
      return PyLess(a, b) || PyEquals(a, b);
    case CompareOp::kGt:
      return PyLess(b, a);
    case CompareOp::kGe:
      return PyLess(b, a) || PyEquals(a, b);
    case CompareOp::kIn:
      return Contains(b, a);
    case CompareOp::kNotIn:
      return !Contains(b, a);
  }
  return false;
}

bool Contains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case Value::Kind::kUndefined:
      return false;  // iterating an undefined value visits nothing
    case Value::Kind::kString:
      if (!item.is_string()) {
        TypeError("'in <string>' requires string as left operand, not " + TypeName(item));
      }
      return container.AsString().find(item.AsString()) != std::string::npos;
    case Value::Kind::kList:
      for (const Value& v : container.AsList()) {
        if (PyEquals(v, item)) return true;
      }
      return false;
    case Value::Kind::kDict:
      if (item.is_list() && !item.is_tuple()) TypeError("unhashable type: 'list'");
      if (item.is_dict()) TypeError("unhashable type: 'dict'");
      return item.is_string() && container.AsDict().Find(item.AsString()) != nullptr;
    default:
      TypeError("argument of type '" + TypeName(container) + "' is not iterable");
  }
}

Value GetAttr(const Value& obj, std::string_view name) {
  RequireDefined(obj);
  if (obj.is_object()) return obj.AsObject().GetAttr(name);
  if (std::optional<Value> method = FindMethod(obj, name)) return std::move(*method);
  if (obj.is_dict()) {
    if (const Value* v = obj.AsDict().Find(name)) return *v;
  }
  return MissingAttribute(obj, name);
}

Value GetItem(const Value& obj, const Value& key) {
  RequireDefined(obj);
  switch (obj.kind()) {
    case Value::Kind::kList:
    case Value::Kind::kString:
      if (key.is_integral()) {
        const int64_t n = obj.is_list() ? static_cast<int64_t>(obj.AsList().size()) : Length(obj);
        int64_t i = key.AsInt();
        if (i < 0) i += n;
        if (i < 0 || i >= n) return MissingElement(obj, key);
        if (obj.is_list()) return obj.AsList()[static_cast<size_t>(i)];
        const std::vector<size_t> off = CodePointOffsets(obj.AsString());
        const auto at = static_cast<size_t>(i);
        return Value(obj.AsString().substr(off[at], off[at + 1] - off[at]));
      }
      break;
    case Value::Kind::kDict:
      if (key.is_string()) {
        if (const Value* v = obj.AsDict().Find(key.AsString())) return *v;
      }
      break;
    case Value::Kind::kObject:
      if (key.is_string()) return obj.AsObject().GetAttr(key.AsString());
      break;
    default:
      break;
  }
  if (key.is_string()) {
    if (std::optional<Value> method = FindMethod(obj, key.AsString())) return std::move(*method);
    return MissingAttribute(obj, key.AsString());
  }
  return MissingElement(obj, key);
}

Value GetSlice(const Value& obj, const Value& start, const Value& stop, const Value& step) {
  RequireDefined(obj);
  if (!(obj.is_list() || obj.is_string()) || !IsSliceBound(start) || !IsSliceBound(stop) ||
      !IsSliceBound(step)) {
    return Value::Undefined("'" + ObjectTypeRepr(obj) + "' cannot be sliced that way");
  }
  const std::optional<int64_t> st = SliceBound(step);
  if (st && *st == 0) throw TemplateError(ErrorKind::kValue, "slice step cannot be zero");
  if (obj.is_list()) {
    const ValueList& items = obj.AsList();
    ValueList out;
    for (const int64_t i : SliceIndices(static_cast<int64_t>(items.size()), SliceBound(start),
                                        SliceBound(stop), st)) {
      out.push_back(items[static_cast<size_t>(i)]);
    }
    return obj.is_tuple() ? Value::Tuple(std::move(out)) : Value::List(std::move(out));
  }
  const std::string& s = obj.AsString();
  const std::vector<size_t> off = CodePointOffsets(s);
  std::string out;
  const auto n = static_cast<int64_t>(off.size() - 1);
  for (const int64_t i : SliceIndices(n, SliceBound(start), SliceBound(stop), st)) {
    const auto at = static_cast<size_t>(i);
    out.append(s, off[at], off[at + 1] - off[at]);
  }
  return Value(std::move(out));
}

ValueList Iterate(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kUndefined:
      return {};
    case Value::Kind::kList:
      return v.AsList();
    case Value::Kind::kDict: {
      ValueList keys;
      keys.reserve(v.AsDict().size());
      for (const auto& [key, value] : v.AsDict().entries()) keys.emplace_back(key);
      return keys;
    }
    case Value::Kind::kString: {
      ValueList chars;
      const std::string& s = v.AsString();
      for (size_t pos = 0; pos < s.size();) {
        const size_t here = pos;
        NextCodePoint(s, pos);
        chars.emplace_back(s.substr(here, pos - here));
      }
      return chars;
    }
    default:
      TypeError("'" + TypeName(v) + "' object is not iterable");
  }
}

int64_t Length(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kUndefined:
      return 0;
    case Value::Kind::kString:
      return static_cast<int64_t>(CodePointCount(v.AsString()));
    case Value::Kind::kList:
      return static_cast<int64_t>(v.AsList().size());
    case Value::Kind::kDict:
      return static_cast<int64_t>(v.AsDict().size());
    default:
      TypeError("object of type '" + TypeName(v) + "' has no len()");
  }
}

}  // namespace orcd::jinja
