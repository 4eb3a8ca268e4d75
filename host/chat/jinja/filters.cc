// jinja2's builtin filters (filters.py), with transformers' tojson.
#include "host/chat/jinja/filters.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "host/chat/jinja/call_args.h"
#include "host/chat/jinja/filter_support.h"
#include "host/chat/jinja/json_dump.h"
#include "host/chat/jinja/methods.h"
#include "host/chat/jinja/operators.h"
#include "host/chat/jinja/py_format.h"
#include "host/chat/jinja/py_string.h"
#include "host/chat/jinja/renderer.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

Value Tojson(Renderer& /*r*/, const Value& v, ArgReader& a) {
  JsonDumpOptions o;
  o.ensure_ascii = a.TakeBool(0, "ensure_ascii", false);
  const Value indent = a.Take(1, "indent", Value::None());
  if (indent.is_integral()) {
    o.indent = std::string(static_cast<size_t>(std::clamp<int64_t>(indent.AsInt(), 0, 64)), ' ');
  } else if (indent.is_string()) {
    o.indent = indent.AsString();
  } else if (!indent.is_none()) {
    throw TemplateError(ErrorKind::kType, "tojson indent must be an int or a string");
  }
  const Value separators = a.Take(2, "separators", Value::None());
  if (!separators.is_none()) {
    const ValueList parts = Iterate(separators);
    if (parts.size() != 2 || !parts[0].is_string() || !parts[1].is_string()) {
      throw TemplateError(ErrorKind::kValue, "tojson separators must be two strings");
    }
    o.item_separator = parts[0].AsString();
    o.key_separator = parts[1].AsString();
  }
  o.sort_keys = a.TakeBool(3, "sort_keys", false);
  return Value(JsonDump(v, o));
}

Value Default(Renderer& /*r*/, const Value& v, ArgReader& a) {
  const Value fallback = a.Take(0, "default_value", Value(""));
  const bool boolean = a.TakeBool(1, "boolean", false);
  return v.is_undefined() || (boolean && !Truthy(v)) ? fallback : v;
}

Value Trim(Renderer& /*r*/, const Value& v, ArgReader& a) {
  return Value(PyStrip(ToStr(v), a.TakeOptionalString(0, "chars"), true, true));
}

Value Replace(Renderer& /*r*/, const Value& v, ArgReader& a) {
  const std::string old = ToStr(a.Require(0, "old"));
  const std::string replacement = ToStr(a.Require(1, "new"));
  return Value(PyReplace(ToStr(v), old, replacement, a.TakeInt(2, "count", -1)));
}

// jinja2's title: each run between [-\s({[<] starts upper-case, the rest lower.
Value Title(Renderer& /*r*/, const Value& v, ArgReader& /*a*/) {
  const std::string s = ToStr(v);
  auto delimiter = [](char32_t c) {
    return IsPySpace(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<';
  };
  std::string out;
  size_t run_start = 0;
  bool run_delim = false;
  auto flush = [&](size_t end) {
    if (end <= run_start) return;
    const std::string_view run = std::string_view(s).substr(run_start, end - run_start);
    size_t first = 0;
    NextCodePoint(run, first);
    out += PyUpper(run.substr(0, first)) + PyLower(run.substr(first));
  };
  for (size_t pos = 0; pos < s.size();) {
    const size_t here = pos;
    const bool d = delimiter(NextCodePoint(s, pos));
    if (here == 0) {
      run_delim = d;
    } else if (d != run_delim) {
      flush(here);
      run_start = here;
      run_delim = d;
    }
  }
  flush(s.size());
  return Value(std::move(out));
}

Value Indent(Renderer& /*r*/, const Value& v, ArgReader& a) {
  const Value width = a.Take(0, "width", Value(4));
  std::string indention;
  if (width.is_string()) {
    indention = width.AsString();
  } else if (width.is_integral()) {
    indention =
        std::string(static_cast<size_t>(std::clamp<int64_t>(width.AsInt(), 0, 1 << 16)), ' ');
  } else {
    throw TemplateError(ErrorKind::kType, "indent width must be an int or a string");
  }
  const bool first = a.TakeBool(1, "first", false);
  const bool blank = a.TakeBool(2, "blank", false);
  const std::vector<std::string> lines = PySplitLines(ToStr(v) + "\n");
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) {
      out += '\n';
      if (blank || !lines[i].empty()) out += indention;
    }
    out += lines[i];
  }
  return Value(first ? indention + out : out);
}

Value Truncate(Renderer& /*r*/, const Value& v, ArgReader& a) {
  const std::string s = ToStr(v);
  const int64_t length = a.TakeInt(0, "length", 255);
  const bool killwords = a.TakeBool(1, "killwords", false);
  const std::string end = a.TakeString(2, "end", "...");
  const int64_t leeway = a.TakeInt(3, "leeway", 5);
  const auto end_len = static_cast<int64_t>(CodePointCount(end));
  if (length < end_len)
    throw TemplateError(ErrorKind::kValue, "expected length >= " + std::to_string(end_len));
  if (static_cast<int64_t>(CodePointCount(s)) <= length + leeway) return Value(s);
  const std::string head =
      GetSlice(Value(s), Value(0), Value(length - end_len), Value()).AsString();
  if (killwords) return Value(head + end);
  return Value(PySplit(head, std::string(" "), 1, true)[0] + end);
}

Value Escape(Renderer& /*r*/, const Value& v, ArgReader& /*a*/) {
  std::string out;
  for (const char c : ToStr(v)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&#34;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return Value(std::move(out));
}

Value Center(Renderer& r, const Value& v, ArgReader& a) {
  CallArgs args;
  args.positional.push_back(Value(a.TakeInt(0, "width", 80)));
  return r.Call(*FindMethod(Value(ToStr(v)), "center"), std::move(args));
}

Value Wordcount(Renderer& /*r*/, const Value& v, ArgReader& /*a*/) {
  const std::string s = ToStr(v);
  int64_t words = 0;
  bool in_word = false;
  for (size_t pos = 0; pos < s.size();) {
    const size_t here = pos;
    const char32_t c = NextCodePoint(s, pos);
    const bool word = c == '_' || PyIsAlnum(std::string_view(s).substr(here, pos - here));
    if (word && !in_word) ++words;
    in_word = word;
  }
  return Value(words);
}

// Python's int(str, base) on a string, else nullopt.
std::optional<int64_t> ParseInt(const std::string& text, int64_t base) {
  std::string s = PyStrip(text, std::nullopt, true, true);
  std::string digits;
  bool negative = false;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  for (; i < s.size(); ++i) {
    if (s[i] == '_' && !digits.empty() && i + 1 < s.size() && s[i + 1] != '_') continue;
    digits += s[i];
  }
  if (digits.empty() || base < 2 || base > 36) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(digits.c_str(), &end, static_cast<int>(base));
  if (*end != '\0' || errno == ERANGE || !(std::isalnum(static_cast<unsigned char>(digits[0]))))
    return std::nullopt;
  return negative ? -value : value;
}

std::optional<double> ParseFloat(const std::string& text) {
  std::string s = PyStrip(text, std::nullopt, true, true);
  s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
  if (s.empty() || s.find_first_of("xXpP") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (*end != '\0') return std::nullopt;
  return value;
}

std::optional<double> AsFloat(const Value& v) {
  if (v.is_number()) return v.AsFloat();
  if (v.is_string()) return ParseFloat(v.AsString());
  return std::nullopt;
}

Value Int(Renderer& /*r*/, const Value& v, ArgReader& a) {
  const Value fallback = a.Take(0, "default", Value(0));
  const int64_t base = a.TakeInt(1, "base", 10);
  if (v.is_integral()) return Value(v.AsInt());
  if (v.is_string()) {
    if (std::optional<int64_t> n = ParseInt(v.AsString(), base)) return Value(*n);
  }
  const std::optional<double> f = AsFloat(v);
  if (!f || std::isnan(*f)) return fallback;
  if (std::isinf(*f) || std::fabs(*f) >= 9.2e18)
    throw TemplateError(ErrorKind::kValue, "cannot convert float to integer");
  return Value(static_cast<int64_t>(std::trunc(*f)));
}

Value Float(Renderer& /*r*/, const Value& v, ArgReader& a) {
  const Value fallback = a.Take(0, "default", Value(0.0));
  const std::optional<double> f = AsFloat(v);
  return f ? Value(*f) : fallback;
}

Value Abs(Renderer& /*r*/, const Value& v, ArgReader& /*a*/) {
  if (v.is_integral()) return v.AsInt() < 0 ? Negate(v) : Value(v.AsInt());
  if (v.is_float()) return Value(std::fabs(v.AsFloat()));
  throw TemplateError(ErrorKind::kType, "bad operand type for abs(): '" + TypeName(v) + "'");
}

Value Round(Renderer& /*r*/, const Value& v, ArgReader& a) {
  const int64_t precision = a.TakeInt(0, "precision", 0);
  const std::string method = a.TakeString(1, "method", "common");
  if (method != "common" && method != "ceil" && method != "floor") {
    throw TemplateError(ErrorKind::kValue, "method must be common, ceil or floor");
  }
  if (!v.is_number())
    throw TemplateError(ErrorKind::kType,
                        "type " + TypeName(v) + " doesn't define __round__ method");
  if (method == "common") {
    if (v.is_integral()) return Value(v.AsInt());
    const double x = v.AsFloat();
    if (!std::isfinite(x)) return v;
    if (precision >= 0) {
      // glibc prints the exact binary value rounded half-even: Python's round().
      char buf[512];
      std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(std::min<int64_t>(precision, 300)),
                    x);
      return Value(std::strtod(buf, nullptr));
    }
    const double scale = std::pow(10.0, static_cast<double>(-precision));
    return Value(std::nearbyint(x / scale) * scale);
  }
  const double scale = std::pow(10.0, static_cast<double>(precision));
  const double scaled = v.AsFloat() * scale;
  return Value((method == "ceil" ? std::ceil(scaled) : std::floor(scaled)) / scale);
}

// value|format(*args) or (**kwargs): printf-style, value % args.
Value Format(Renderer& /*r*/, const Value& v, ArgReader& a) {
  ValueList positional = a.Rest(0);
  const auto keywords = a.RestKeywords();
  if (!positional.empty() && !keywords.empty()) {
    throw TemplateError(ErrorKind::kValue,
                        "can't handle positional and keyword arguments at the same time");
  }
  if (!keywords.empty()) {
    Dict mapping;
    for (const auto& [key, value] : keywords) mapping.Set(key, value);
    return Value(PercentFormat(ToStr(v), Value::FromDict(std::move(mapping))));
  }
  return Value(PercentFormat(ToStr(v), Value::Tuple(std::move(positional))));
}

Value Attr(Renderer& /*r*/, const Value& v, ArgReader& a) {
  const std::string name = ToStr(a.Require(0, "name"));
  // Attributes only, not items (jinja2's do_attr).
  if (v.is_object()) return v.AsObject().GetAttr(name);
  if (std::optional<Value> method = FindMethod(v, name)) return *method;
  return Value::Undefined("'" + TypeName(v) + " object' has no attribute '" + name + "'");
}

Value Str(Renderer& /*r*/, const Value& v, ArgReader& /*a*/) { return Value(ToStr(v)); }
Value Upper(Renderer& /*r*/, const Value& v, ArgReader& /*a*/) { return Value(PyUpper(ToStr(v))); }
Value Lower(Renderer& /*r*/, const Value& v, ArgReader& /*a*/) { return Value(PyLower(ToStr(v))); }
Value Capitalize(Renderer& /*r*/, const Value& v, ArgReader& /*a*/) {
  return Value(PyCapitalize(ToStr(v)));
}
Value Safe(Renderer& /*r*/, const Value& v, ArgReader& /*a*/) { return v; }

constexpr FilterEntry kFilters[] = {
    {"abs", Abs},
    {"attr", Attr},
    {"capitalize", Capitalize},
    {"center", Center},
    {"d", Default},
    {"default", Default},
    {"e", Escape},
    {"escape", Escape},
    {"float", Float},
    {"forceescape", Escape},
    {"format", Format},
    {"indent", Indent},
    {"int", Int},
    {"lower", Lower},
    {"replace", Replace},
    {"round", Round},
    {"safe", Safe},
    {"string", Str},
    {"title", Title},
    {"tojson", Tojson},
    {"trim", Trim},
    {"truncate", Truncate},
    {"upper", Upper},
    {"wordcount", Wordcount},
};

// jinja2 filters this engine does not implement.
constexpr std::string_view kUnsupportedFilters[] = {
    "filesizeformat", "groupby",   "pprint", "random",   "slice",
    "striptags",      "urlencode", "urlize", "wordwrap", "xmlattr"};

FilterFn FindFilter(std::string_view name) {
  for (const FilterEntry& f : kFilters) {
    if (f.name == name) return f.fn;
  }
  for (const FilterEntry& f : SequenceFilters()) {
    if (f.name == name) return f.fn;
  }
  return nullptr;
}

}  // namespace

Availability FilterAvailability(std::string_view name) {
  if (FindFilter(name) != nullptr) return Availability::kAvailable;
  for (const std::string_view n : kUnsupportedFilters) {
    if (n == name) return Availability::kUnsupported;
  }
  return Availability::kUnknown;
}

Value ApplyFilter(Renderer& renderer, std::string_view name, const Value& operand,
                  const CallArgs& args) {
  const FilterFn fn = FindFilter(name);
  if (fn == nullptr) {
    throw TemplateError(ErrorKind::kUnsupported, "No filter named '" + std::string(name) + "'");
  }
  ArgReader reader(name, args);
  Value result = fn(renderer, operand, reader);
  reader.Finish();
  return result;
}

}  // namespace orcd::jinja
