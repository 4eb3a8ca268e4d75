// jinja2's filters over sequences and mappings: map, select(attr), reject(attr),
// sort, dictsort, unique, min, max, sum, join, first, last, batch, ...
#include <algorithm>

#include "host/chat/jinja/filter_support.h"
#include "host/chat/jinja/filters.h"
#include "host/chat/jinja/operators.h"
#include "host/chat/jinja/py_string.h"
#include "host/chat/jinja/renderer.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

ValueList Items(Renderer& r, const Value& v) {
  ValueList items = Iterate(v);
  r.CountIterations(items.size());
  return items;
}

// A key function: the attribute (or the item), case-folded unless case_sensitive.
struct KeyFn {
  Value attribute = Value::None();
  bool case_sensitive = true;
  Value operator()(const Value& item) const {
    Value key = attribute.is_none() ? item : GetAttribute(item, attribute, Value::None());
    return case_sensitive ? key : IgnoreCase(key);
  }
};

// sort's attribute may name several, comma-separated.
Value MultiKey(const Value& item, const std::vector<Value>& attributes, bool case_sensitive) {
  ValueList keys;
  for (const Value& attribute : attributes) keys.push_back(KeyFn{attribute, case_sensitive}(item));
  return Value::List(std::move(keys));
}

Value Sort(Renderer& r, const Value& v, ArgReader& a) {
  const bool reverse = a.TakeBool(0, "reverse", false);
  const bool case_sensitive = a.TakeBool(1, "case_sensitive", false);
  const Value attribute = a.Take(2, "attribute", Value::None());
  std::vector<Value> attributes;
  if (attribute.is_string()) {
    for (const std::string& part : PySplit(attribute.AsString(), std::string(","), -1, false)) {
      attributes.emplace_back(PyStrip(part, std::nullopt, true, true));
    }
  } else {
    attributes.push_back(attribute);
  }
  ValueList items = Items(r, v);
  std::vector<std::pair<Value, size_t>> keyed;
  for (size_t i = 0; i < items.size(); ++i)
    keyed.emplace_back(MultiKey(items[i], attributes, case_sensitive), i);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    return reverse ? PyLess(y.first, x.first) : PyLess(x.first, y.first);
  });
  ValueList out;
  for (const auto& [key, i] : keyed) out.push_back(items[i]);
  return Value::List(std::move(out));
}

Value Dictsort(Renderer& r, const Value& v, ArgReader& a) {
  const bool case_sensitive = a.TakeBool(0, "case_sensitive", false);
  const std::string by = a.TakeString(1, "by", "key");
  const bool reverse = a.TakeBool(2, "reverse", false);
  if (by != "key" && by != "value")
    throw TemplateError(ErrorKind::kValue, "You can only sort by either \"key\" or \"value\"");
  RequireDefined(v);
  if (!v.is_dict()) throw TemplateError(ErrorKind::kType, "dictsort expects a mapping");
  ValueList pairs;
  for (const auto& [key, value] : v.AsDict().entries())
    pairs.push_back(Value::Tuple({Value(key), value}));
  r.CountIterations(pairs.size());
  const size_t pos = by == "key" ? 0 : 1;
  auto key = [&](const Value& p) {
    return case_sensitive ? p.AsList()[pos] : IgnoreCase(p.AsList()[pos]);
  };
  std::stable_sort(pairs.begin(), pairs.end(), [&](const Value& x, const Value& y) {
    return reverse ? PyLess(key(y), key(x)) : PyLess(key(x), key(y));
  });
  return Value::List(std::move(pairs));
}

Value Unique(Renderer& r, const Value& v, ArgReader& a) {
  const KeyFn key{a.Take(1, "attribute", Value::None()), a.TakeBool(0, "case_sensitive", false)};
  ValueList seen;
  ValueList out;
  for (const Value& item : Items(r, v)) {
    const Value k = key(item);
    if (std::any_of(seen.begin(), seen.end(), [&](const Value& s) { return PyEquals(s, k); }))
      continue;
    r.CountIterations(seen.size());
    seen.push_back(k);
    out.push_back(item);
  }
  return Value::List(std::move(out));
}

Value MinMax(Renderer& r, const Value& v, ArgReader& a, bool max) {
  const KeyFn key{a.Take(1, "attribute", Value::None()), a.TakeBool(0, "case_sensitive", false)};
  const ValueList items = Items(r, v);
  if (items.empty()) return Value::Undefined("No aggregated item, sequence was empty.");
  size_t best = 0;
  Value best_key = key(items[0]);
  for (size_t i = 1; i < items.size(); ++i) {
    Value k = key(items[i]);
    if (max ? PyLess(best_key, k) : PyLess(k, best_key)) {
      best = i;
      best_key = std::move(k);
    }
  }
  return items[best];
}

Value Sum(Renderer& r, const Value& v, ArgReader& a) {
  const Value attribute = a.Take(0, "attribute", Value::None());
  Value total = a.Take(1, "start", Value(0));
  for (const Value& item : Items(r, v)) {
    total = BinaryOperation(
        BinaryOp::kAdd, total,
        attribute.is_none() ? item : GetAttribute(item, attribute, Value::None()), r.max_bytes());
  }
  return total;
}

Value Join(Renderer& r, const Value& v, ArgReader& a) {
  const std::string sep = ToStr(a.Take(0, "d", Value("")));
  const Value attribute = a.Take(1, "attribute", Value::None());
  std::string out;
  bool first = true;
  for (const Value& item : Items(r, v)) {
    if (!first) out += sep;
    first = false;
    out += ToStr(attribute.is_none() ? item : GetAttribute(item, attribute, Value::None()));
    if (out.size() > r.max_bytes()) throw TemplateError(ErrorKind::kLimit, "join result too large");
  }
  return Value(std::move(out));
}

// select / reject / selectattr / rejectattr.
Value SelectOrReject(Renderer& r, const Value& v, ArgReader& a, bool select, bool by_attribute) {
  ValueList rest = a.Rest(0);
  Value attribute = Value::None();
  if (by_attribute) {
    if (rest.empty()) throw TemplateError(ErrorKind::kType, "missing the attribute to test");
    attribute = rest.front();
    rest.erase(rest.begin());
  }
  std::string test;
  if (!rest.empty()) {
    test = ToStr(rest.front());
    rest.erase(rest.begin());
    if (TestAvailability(test) != Availability::kAvailable) {
      throw TemplateError(ErrorKind::kUnsupported, "No test named '" + test + "'");
    }
  }
  CallArgs test_args;
  test_args.positional = std::move(rest);
  test_args.keywords = a.RestKeywords();
  ValueList out;
  for (const Value& item : Items(r, v)) {
    const Value subject = by_attribute ? GetAttribute(item, attribute, Value::None()) : item;
    const bool passed = test.empty() ? Truthy(subject) : ApplyTest(r, test, subject, test_args);
    if (passed == select) out.push_back(item);
  }
  return Value::List(std::move(out));
}

Value Map(Renderer& r, const Value& v, ArgReader& a) {
  ValueList rest = a.Rest(0);
  ValueList out;
  if (rest.empty()) {
    const std::optional<Value> attribute = a.Take(SIZE_MAX, "attribute");
    if (!attribute) throw TemplateError(ErrorKind::kType, "map requires a filter argument");
    const Value fallback = a.Take(SIZE_MAX, "default", Value::None());
    for (const Value& item : Items(r, v)) out.push_back(GetAttribute(item, *attribute, fallback));
    return Value::List(std::move(out));
  }
  const std::string filter = ToStr(rest.front());
  rest.erase(rest.begin());
  CallArgs filter_args;
  filter_args.positional = std::move(rest);
  filter_args.keywords = a.RestKeywords();
  for (const Value& item : Items(r, v)) out.push_back(ApplyFilter(r, filter, item, filter_args));
  return Value::List(std::move(out));
}

Value First(Renderer& r, const Value& v, ArgReader& /*a*/) {
  const ValueList items = Items(r, v);
  return items.empty() ? Value::Undefined("No first item, sequence was empty.") : items.front();
}

Value Last(Renderer& r, const Value& v, ArgReader& /*a*/) {
  const ValueList items = Items(r, v);
  return items.empty() ? Value::Undefined("No last item, sequence was empty.") : items.back();
}

Value Length(Renderer& /*r*/, const Value& v, ArgReader& /*a*/) { return Value(Length(v)); }

Value ToList(Renderer& r, const Value& v, ArgReader& /*a*/) { return Value::List(Items(r, v)); }

Value Reverse(Renderer& r, const Value& v, ArgReader& /*a*/) {
  if (v.is_string()) return GetSlice(v, Value(), Value(), Value(-1));
  ValueList items = Items(r, v);
  std::reverse(items.begin(), items.end());
  return Value::List(std::move(items));
}

Value ItemsFilter(Renderer& /*r*/, const Value& v, ArgReader& /*a*/) {
  if (v.is_undefined()) return Value::List({});
  if (!v.is_dict())
    throw TemplateError(ErrorKind::kType, "Can only get item pairs from a mapping.");
  ValueList pairs;
  for (const auto& [key, value] : v.AsDict().entries())
    pairs.push_back(Value::Tuple({Value(key), value}));
  return Value::List(std::move(pairs));
}

Value Batch(Renderer& r, const Value& v, ArgReader& a) {
  const int64_t count = a.TakeInt(0, "linecount", 1);
  const Value fill = a.Take(1, "fill_with", Value::None());
  if (count <= 0) throw TemplateError(ErrorKind::kValue, "batch size must be positive");
  ValueList out;
  ValueList current;
  for (const Value& item : Items(r, v)) {
    if (static_cast<int64_t>(current.size()) == count) {
      out.push_back(Value::List(std::move(current)));
      current.clear();
    }
    current.push_back(item);
  }
  if (!current.empty()) {
    while (!fill.is_none() && static_cast<int64_t>(current.size()) < count) current.push_back(fill);
    out.push_back(Value::List(std::move(current)));
  }
  return Value::List(std::move(out));
}

constexpr FilterEntry kSequenceFilters[] = {
    {"batch", Batch},
    {"count", Length},
    {"dictsort", Dictsort},
    {"first", First},
    {"items", ItemsFilter},
    {"join", Join},
    {"last", Last},
    {"length", Length},
    {"list", ToList},
    {"map", Map},
    {"max", [](Renderer& r, const Value& v, ArgReader& a) { return MinMax(r, v, a, true); }},
    {"min", [](Renderer& r, const Value& v, ArgReader& a) { return MinMax(r, v, a, false); }},
    {"reject", [](Renderer& r, const Value& v,
                  ArgReader& a) { return SelectOrReject(r, v, a, false, false); }},
    {"rejectattr", [](Renderer& r, const Value& v,
                      ArgReader& a) { return SelectOrReject(r, v, a, false, true); }},
    {"reverse", Reverse},
    {"select", [](Renderer& r, const Value& v,
                  ArgReader& a) { return SelectOrReject(r, v, a, true, false); }},
    {"selectattr",
     [](Renderer& r, const Value& v, ArgReader& a) { return SelectOrReject(r, v, a, true, true); }},
    {"sort", Sort},
    {"sum", Sum},
    {"unique", Unique},
};

}  // namespace

std::span<const FilterEntry> SequenceFilters() { return kSequenceFilters; }

Value GetAttribute(const Value& item, const Value& attribute, const Value& fallback) {
  std::vector<Value> parts;
  if (attribute.is_string()) {
    for (const std::string& part : PySplit(attribute.AsString(), std::string("."), -1, false)) {
      const bool digits =
          !part.empty() && part.size() < 19 &&
          std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
      parts.push_back(digits ? Value(static_cast<int64_t>(std::stoll(part))) : Value(part));
    }
  } else if (!attribute.is_none()) {
    parts.push_back(attribute);
  }
  Value current = item;
  for (const Value& part : parts) {
    current = GetItem(current, part);
    if (!fallback.is_none() && current.is_undefined()) current = fallback;
  }
  return current;
}

Value IgnoreCase(const Value& v) { return v.is_string() ? Value(PyLower(v.AsString())) : v; }

}  // namespace orcd::jinja
