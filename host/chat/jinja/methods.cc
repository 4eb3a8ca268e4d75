#include "host/chat/jinja/methods.h"

#include <algorithm>
#include <array>

#include "host/chat/jinja/call_args.h"
#include "host/chat/jinja/operators.h"
#include "host/chat/jinja/py_string.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

using MethodFn = Value (*)(const Value& self, ArgReader& args);

// Padding methods refuse widths past this (a template asking for more is hostile).
constexpr int64_t kMaxWidth = 1 << 20;

class BoundMethod : public Callable {
 public:
  BoundMethod(Value self, std::string qualname, MethodFn fn)
      : self_(std::move(self)), qualname_(std::move(qualname)), fn_(fn) {}
  std::string Name() const override { return "built-in method " + qualname_; }
  Value Call(Renderer& /*renderer*/, CallArgs args) const override {
    ArgReader reader(qualname_, args);
    Value result = fn_(self_, reader);
    reader.Finish();
    return result;
  }

 private:
  Value self_;
  std::string qualname_;
  MethodFn fn_;
};

// A method Python has and the sandbox or this engine refuses.
class RefusedMethod : public Callable {
 public:
  RefusedMethod(std::string qualname, ErrorKind kind)
      : qualname_(std::move(qualname)), kind_(kind) {}
  std::string Name() const override { return "built-in method " + qualname_; }
  Value Call(Renderer& /*renderer*/, CallArgs /*args*/) const override {
    throw TemplateError(
        kind_, kind_ == ErrorKind::kSecurity
                   ? "access to '" + qualname_ + "' is unsafe (templates cannot change values)"
                   : "'" + qualname_ + "' is not supported");
  }

 private:
  std::string qualname_;
  ErrorKind kind_;
};

const std::string& Str(const Value& v) { return v.AsString(); }

Value Strip(const Value& self, ArgReader& a, bool left, bool right) {
  return Value(PyStrip(Str(self), a.TakeOptionalString(0, "chars"), left, right));
}

ValueList ToList(std::vector<std::string> parts) {
  ValueList out;
  out.reserve(parts.size());
  for (std::string& p : parts) out.emplace_back(std::move(p));
  return out;
}

Value Split(const Value& self, ArgReader& a, bool from_right) {
  std::optional<std::string> sep = a.TakeOptionalString(0, "sep");
  if (sep && sep->empty()) throw TemplateError(ErrorKind::kValue, "empty separator");
  const int64_t maxsplit = a.TakeInt(1, "maxsplit", -1);
  return Value::List(ToList(PySplit(Str(self), sep, maxsplit, from_right)));
}

// s[start:end] in code points, for startswith/endswith/find's optional bounds.
std::string Window(const std::string& s, ArgReader& a, size_t pos) {
  const Value start = a.Take(pos, "start", Value::None());
  const Value end = a.Take(pos + 1, "end", Value::None());
  if (start.is_none() && end.is_none()) return s;
  return GetSlice(Value(s), start, end, Value::None()).AsString();
}

Value AffixTest(const Value& self, ArgReader& a, bool prefix) {
  const Value what = a.Require(0, prefix ? "prefix" : "suffix");
  const std::string s = Window(Str(self), a, 1);
  ValueList options = what.is_tuple() ? what.AsList() : ValueList{what};
  for (const Value& o : options) {
    if (!o.is_string()) {
      throw TemplateError(ErrorKind::kType, std::string(prefix ? "startswith" : "endswith") +
                                                " first arg must be str or a tuple of str, not " +
                                                TypeName(o));
    }
    const std::string& x = o.AsString();
    if (x.size() <= s.size() && (prefix ? s.compare(0, x.size(), x) == 0
                                        : s.compare(s.size() - x.size(), x.size(), x) == 0)) {
      return Value(true);
    }
  }
  return Value(false);
}

Value Find(const Value& self, ArgReader& a, bool from_right, bool must) {
  const std::string sub = a.TakeString(0, "sub", "");
  const int64_t i = PyFind(Str(self), sub, from_right);
  if (must && i < 0) throw TemplateError(ErrorKind::kValue, "substring not found");
  return Value(i);
}

Value Pad(const Value& self, ArgReader& a, char how) {
  const int64_t width = a.TakeInt(0, "width", 0);
  if (width > kMaxWidth) throw TemplateError(ErrorKind::kLimit, "padding width too large");
  std::string fill = how == 'z' ? "0" : a.TakeString(1, "fillchar", " ");
  if (CodePointCount(fill) != 1) {
    throw TemplateError(ErrorKind::kType, "The fill character must be exactly one character long");
  }
  const std::string& s = Str(self);
  const auto len = static_cast<int64_t>(CodePointCount(s));
  if (width <= len) return self;
  const int64_t marg = width - len;
  int64_t left = 0;
  if (how == 'c') left = marg / 2 + (marg & width & 1);
  if (how == 'r' || how == 'z') left = marg;
  auto repeat = [&](int64_t n) {
    std::string out;
    for (int64_t i = 0; i < n; ++i) out += fill;
    return out;
  };
  if (how == 'z' && !s.empty() && (s[0] == '-' || s[0] == '+')) {
    return Value(s.substr(0, 1) + repeat(left) + s.substr(1));
  }
  return Value(repeat(left) + s + repeat(marg - left));
}

Value Partition(const Value& self, ArgReader& a, bool from_right) {
  const std::string sep = a.TakeString(0, "sep", "");
  if (sep.empty()) throw TemplateError(ErrorKind::kValue, "empty separator");
  const std::string& s = Str(self);
  const size_t hit = from_right ? s.rfind(sep) : s.find(sep);
  if (hit == std::string::npos) {
    return from_right ? Value::Tuple({Value(""), Value(""), self})
                      : Value::Tuple({self, Value(""), Value("")});
  }
  return Value::Tuple({Value(s.substr(0, hit)), Value(sep), Value(s.substr(hit + sep.size()))});
}

Value Join(const Value& self, ArgReader& a) {
  const ValueList items = Iterate(a.Require(0, "iterable"));
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_string()) {
      throw TemplateError(ErrorKind::kType, "sequence item " + std::to_string(i) +
                                                ": expected str instance, " + TypeName(items[i]) +
                                                " found");
    }
    if (i > 0) out += Str(self);
    out += items[i].AsString();
  }
  return Value(std::move(out));
}

// str.format with plain fields: {}, {0}, {name}; no conversions or specs.
Value Format(const Value& self, ArgReader& a) {
  const ValueList positional = a.Rest(0);
  const std::string& f = Str(self);
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '}' && i + 1 < f.size() && f[i + 1] == '}') {
      out += '}';
      ++i;
      continue;
    }
    if (f[i] != '{') {
      out += f[i];
      continue;
    }
    if (i + 1 < f.size() && f[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    const size_t close = f.find('}', i);
    if (close == std::string::npos)
      throw TemplateError(ErrorKind::kValue, "Single '{' encountered in format string");
    const std::string field = f.substr(i + 1, close - i - 1);
    if (field.find_first_of("!:.[") != std::string::npos) {
      throw TemplateError(ErrorKind::kUnsupported,
                          "str.format field '{" + field + "}' is not supported");
    }
    Value v;
    if (field.empty() ||
        std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      const size_t index = field.empty() ? auto_index++ : std::stoul(field);
      if (index >= positional.size()) {
        throw TemplateError(ErrorKind::kValue,
                            "Replacement index " + std::to_string(index) + " out of range");
      }
      v = positional[index];
    } else {
      std::optional<Value> named = a.Take(SIZE_MAX, field);
      if (!named) throw TemplateError(ErrorKind::kValue, "KeyError: '" + field + "'");
      v = *named;
    }
    out += ToStr(v);
    i = close;
  }
  a.RestKeywords();  // str.format ignores keyword arguments no field names
  return Value(std::move(out));
}

Value DictItems(const Value& self, ArgReader& /*a*/) {
  ValueList items;
  for (const auto& [key, value] : self.AsDict().entries())
    items.push_back(Value::Tuple({Value(key), value}));
  return Value::List(std::move(items));
}

Value DictKeys(const Value& self, ArgReader& /*a*/) { return Value::List(Iterate(self)); }

Value DictValues(const Value& self, ArgReader& /*a*/) {
  ValueList values;
  for (const auto& [key, value] : self.AsDict().entries()) values.push_back(value);
  return Value::List(std::move(values));
}

Value DictGet(const Value& self, ArgReader& a) {
  const Value key = a.Require(0, "key");
  const Value fallback = a.Take(1, "default", Value::None());
  if (key.is_string()) {
    if (const Value* v = self.AsDict().Find(key.AsString())) return *v;
  }
  return fallback;
}

Value ListIndex(const Value& self, ArgReader& a) {
  const Value x = a.Require(0, "value");
  const ValueList& items = self.AsList();
  for (size_t i = 0; i < items.size(); ++i) {
    if (PyEquals(items[i], x)) return Value(static_cast<int64_t>(i));
  }
  throw TemplateError(ErrorKind::kValue, Repr(x) + " is not in list");
}

Value ListCount(const Value& self, ArgReader& a) {
  const Value x = a.Require(0, "value");
  return Value(static_cast<int64_t>(std::count_if(self.AsList().begin(), self.AsList().end(),
                                                  [&](const Value& v) { return PyEquals(v, x); })));
}

Value Same(const Value& self, ArgReader& /*a*/) { return self; }

struct Method {
  std::string_view name;
  MethodFn fn;
};

#define ORCD_STR_PRED(fn) [](const Value& s, ArgReader&) { return Value(fn(Str(s))); }

const Method kStringMethods[] = {
    {"strip", [](const Value& s, ArgReader& a) { return Strip(s, a, true, true); }},
    {"lstrip", [](const Value& s, ArgReader& a) { return Strip(s, a, true, false); }},
    {"rstrip", [](const Value& s, ArgReader& a) { return Strip(s, a, false, true); }},
    {"split", [](const Value& s, ArgReader& a) { return Split(s, a, false); }},
    {"rsplit", [](const Value& s, ArgReader& a) { return Split(s, a, true); }},
    {"splitlines",
     [](const Value& s, ArgReader&) { return Value::List(ToList(PySplitLines(Str(s)))); }},
    {"startswith", [](const Value& s, ArgReader& a) { return AffixTest(s, a, true); }},
    {"endswith", [](const Value& s, ArgReader& a) { return AffixTest(s, a, false); }},
    {"upper", [](const Value& s, ArgReader&) { return Value(PyUpper(Str(s))); }},
    {"lower", [](const Value& s, ArgReader&) { return Value(PyLower(Str(s))); }},
    {"title", [](const Value& s, ArgReader&) { return Value(PyTitle(Str(s))); }},
    {"capitalize", [](const Value& s, ArgReader&) { return Value(PyCapitalize(Str(s))); }},
    {"replace",
     [](const Value& s, ArgReader& a) {
       const std::string old = a.TakeString(0, "old", "");
       const std::string repl = a.TakeString(1, "new", "");
       return Value(PyReplace(Str(s), old, repl, a.TakeInt(2, "count", -1)));
     }},
    {"find", [](const Value& s, ArgReader& a) { return Find(s, a, false, false); }},
    {"rfind", [](const Value& s, ArgReader& a) { return Find(s, a, true, false); }},
    {"index", [](const Value& s, ArgReader& a) { return Find(s, a, false, true); }},
    {"rindex", [](const Value& s, ArgReader& a) { return Find(s, a, true, true); }},
    {"count", [](const Value& s,
                 ArgReader& a) { return Value(PyCount(Str(s), a.TakeString(0, "sub", ""))); }},
    {"join", Join},
    {"format", Format},
    {"isdigit", ORCD_STR_PRED(PyIsDigit)},
    {"isdecimal", ORCD_STR_PRED(PyIsDigit)},
    {"isnumeric", ORCD_STR_PRED(PyIsDigit)},
    {"isalpha", ORCD_STR_PRED(PyIsAlpha)},
    {"isalnum", ORCD_STR_PRED(PyIsAlnum)},
    {"isspace", ORCD_STR_PRED(PyIsSpace)},
    {"isupper", ORCD_STR_PRED(PyIsUpper)},
    {"islower", ORCD_STR_PRED(PyIsLower)},
    {"removeprefix",
     [](const Value& s, ArgReader& a) {
       const std::string p = a.TakeString(0, "prefix", "");
       return Value(Str(s).compare(0, p.size(), p) == 0 ? Str(s).substr(p.size()) : Str(s));
     }},
    {"removesuffix",
     [](const Value& s, ArgReader& a) {
       const std::string x = a.TakeString(0, "suffix", "");
       const std::string& t = Str(s);
       const bool ends =
           !x.empty() && x.size() <= t.size() && t.compare(t.size() - x.size(), x.size(), x) == 0;
       return Value(ends ? t.substr(0, t.size() - x.size()) : t);
     }},
    {"partition", [](const Value& s, ArgReader& a) { return Partition(s, a, false); }},
    {"rpartition", [](const Value& s, ArgReader& a) { return Partition(s, a, true); }},
    {"center", [](const Value& s, ArgReader& a) { return Pad(s, a, 'c'); }},
    {"ljust", [](const Value& s, ArgReader& a) { return Pad(s, a, 'l'); }},
    {"rjust", [](const Value& s, ArgReader& a) { return Pad(s, a, 'r'); }},
    {"zfill", [](const Value& s, ArgReader& a) { return Pad(s, a, 'z'); }},
};

#undef ORCD_STR_PRED

constexpr std::string_view kStringUnsupported[] = {
    "casefold",    "encode",  "expandtabs", "format_map", "isascii",  "isidentifier",
    "isprintable", "istitle", "maketrans",  "swapcase",   "translate"};

const Method kDictMethods[] = {
    {"items", DictItems}, {"keys", DictKeys}, {"values", DictValues},
    {"get", DictGet},     {"copy", Same},
};
constexpr std::string_view kDictMutators[] = {"clear", "pop", "popitem", "setdefault", "update"};

const Method kListMethods[] = {{"index", ListIndex}, {"count", ListCount}, {"copy", Same}};
constexpr std::string_view kListMutators[] = {"append", "clear",  "extend",  "insert",
                                              "pop",    "remove", "reverse", "sort"};

template <size_t N>
std::optional<Value> Lookup(const Value& obj, std::string_view type, std::string_view name,
                            const Method (&table)[N]) {
  for (const Method& m : table) {
    if (m.name == name) {
      return Value::FromCallable(
          std::make_shared<BoundMethod>(obj, std::string(type) + "." + std::string(name), m.fn));
    }
  }
  return std::nullopt;
}

template <size_t N>
std::optional<Value> Refused(std::string_view type, std::string_view name,
                             const std::string_view (&names)[N], ErrorKind kind) {
  if (std::find(std::begin(names), std::end(names), name) == std::end(names)) return std::nullopt;
  return Value::FromCallable(
      std::make_shared<RefusedMethod>(std::string(type) + "." + std::string(name), kind));
}

}  // namespace

std::optional<Value> FindMethod(const Value& obj, std::string_view name) {
  switch (obj.kind()) {
    case Value::Kind::kString:
      if (auto m = Lookup(obj, "str", name, kStringMethods)) return m;
      return Refused("str", name, kStringUnsupported, ErrorKind::kUnsupported);
    case Value::Kind::kDict:
      if (auto m = Lookup(obj, "dict", name, kDictMethods)) return m;
      if (name == "fromkeys") return Refused("dict", name, {"fromkeys"}, ErrorKind::kUnsupported);
      return Refused("dict", name, kDictMutators, ErrorKind::kSecurity);
    case Value::Kind::kList:
      if (obj.is_tuple()) {
        if (name == "copy") return std::nullopt;
        return Lookup(obj, "tuple", name, kListMethods);
      }
      if (auto m = Lookup(obj, "list", name, kListMethods)) return m;
      return Refused("list", name, kListMutators, ErrorKind::kSecurity);
    default:
      return std::nullopt;
  }
}

}  // namespace orcd::jinja
