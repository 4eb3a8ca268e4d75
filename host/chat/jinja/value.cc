#include "host/chat/jinja/value.h"

#include <algorithm>

#include "host/chat/jinja/py_format.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

// Python's repr gives up with RecursionError near this depth.
constexpr int kMaxReprDepth = 512;

void AppendRepr(std::string& out, const Value& v);

void AppendItems(std::string& out, const ValueList& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    AppendRepr(out, items[i]);
  }
}

// Nesting of repr() calls on this thread, across objects that print their
// contents (a namespace holding itself would otherwise recurse forever).
thread_local int repr_nesting = 0;

class ReprNesting {
 public:
  ReprNesting() {
    if (++repr_nesting > kMaxReprDepth) {
      --repr_nesting;
      throw TemplateError(ErrorKind::kLimit, "value nests too deeply to print");
    }
  }
  ~ReprNesting() { --repr_nesting; }
  ReprNesting(const ReprNesting&) = delete;
  ReprNesting& operator=(const ReprNesting&) = delete;
};

void AppendRepr(std::string& out, const Value& v) {
  const ReprNesting nesting;
  switch (v.kind()) {
    case Value::Kind::kString:
      out += StringRepr(v.AsString());
      return;
    case Value::Kind::kList:
      if (v.is_tuple()) {
        out += '(';
        AppendItems(out, v.AsList());
        out += v.AsList().size() == 1 ? ",)" : ")";
      } else {
        out += '[';
        AppendItems(out, v.AsList());
        out += ']';
      }
      return;
    case Value::Kind::kDict: {
      out += '{';
      bool first = true;
      for (const auto& [key, value] : v.AsDict().entries()) {
        if (!first) out += ", ";
        first = false;
        out += StringRepr(key);
        out += ": ";
        AppendRepr(out, value);
      }
      out += '}';
      return;
    }
    case Value::Kind::kUndefined:
      out += "Undefined";
      return;
    default:
      out += ToStr(v);
  }
}

}  // namespace

Value Value::Undefined(std::string hint) {
  return Value(UndefinedData{std::make_shared<const std::string>(std::move(hint))});
}

Value::ListPtr Value::MakeList(ValueList items, bool tuple) {
  int depth = 0;
  for (const Value& v : items) depth = std::max(depth, v.NestingDepth());
  if (depth + 1 > kMaxValueDepth) {
    throw TemplateError(ErrorKind::kLimit,
                        "lists and dicts nest deeper than " + std::to_string(kMaxValueDepth));
  }
  return std::make_shared<const ListBox>(ListBox{std::move(items), tuple, depth + 1});
}

int Value::NestingDepth() const {
  if (is_list()) return std::get<ListPtr>(v_)->depth;
  if (is_dict()) return AsDict().depth();
  return 0;
}

Value Value::FromDict(Dict dict) { return Value(std::make_shared<const Dict>(std::move(dict))); }

const std::string& Value::undefined_hint() const {
  static const std::string kEmpty;
  const auto& hint = std::get<UndefinedData>(v_).hint;
  return hint ? *hint : kEmpty;
}

bool Value::SameAs(const Value& other) const {
  if (kind() != other.kind()) return false;
  switch (kind()) {
    case Kind::kUndefined:
    case Kind::kNone:
      return true;
    case Kind::kBool:
      return AsBool() == other.AsBool();
    case Kind::kInt:
      return AsInt() == other.AsInt();
    case Kind::kFloat:
      return AsFloat() == other.AsFloat();
    case Kind::kString:
      return std::get<StringPtr>(v_) == std::get<StringPtr>(other.v_);
    case Kind::kList:
      return std::get<ListPtr>(v_) == std::get<ListPtr>(other.v_);
    case Kind::kDict:
      return std::get<DictPtr>(v_) == std::get<DictPtr>(other.v_);
    case Kind::kCallable:
      return std::get<CallablePtr>(v_) == std::get<CallablePtr>(other.v_);
    case Kind::kObject:
      return std::get<ObjectPtr>(v_) == std::get<ObjectPtr>(other.v_);
  }
  return false;
}

const Value* Dict::Find(std::string_view key) const {
  if (entries_.size() <= 8) {
    for (const Entry& e : entries_) {
      if (e.first == key) return &e.second;
    }
    return nullptr;
  }
  const auto it = index_.find(key);
  return it == index_.end() ? nullptr : &entries_[it->second].second;
}

void Dict::Set(std::string key, Value value) {
  const int depth = value.NestingDepth() + 1;
  if (depth > kMaxValueDepth) {
    throw TemplateError(ErrorKind::kLimit,
                        "lists and dicts nest deeper than " + std::to_string(kMaxValueDepth));
  }
  depth_ = std::max(depth_, depth);
  if (const Value* existing = Find(key)) {
    *const_cast<Value*>(existing) = std::move(value);
    return;
  }
  entries_.emplace_back(std::move(key), std::move(value));
  // Small dicts (most JSON objects) search linearly; larger ones index keys.
  if (entries_.size() <= 8) return;
  if (index_.empty()) {
    for (size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].first, i);
  } else {
    index_.emplace(entries_.back().first, entries_.size() - 1);
  }
}

bool Truthy(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kUndefined:
    case Value::Kind::kNone:
      return false;
    case Value::Kind::kBool:
      return v.AsBool();
    case Value::Kind::kInt:
      return v.AsInt() != 0;
    case Value::Kind::kFloat:
      return v.AsFloat() != 0.0;
    case Value::Kind::kString:
      return !v.AsString().empty();
    case Value::Kind::kList:
      return !v.AsList().empty();
    case Value::Kind::kDict:
      return !v.AsDict().empty();
    case Value::Kind::kCallable:
    case Value::Kind::kObject:
      return true;
  }
  return false;
}

std::string TypeName(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kUndefined:
      return "Undefined";
    case Value::Kind::kNone:
      return "NoneType";
    case Value::Kind::kBool:
      return "bool";
    case Value::Kind::kInt:
      return "int";
    case Value::Kind::kFloat:
      return "float";
    case Value::Kind::kString:
      return "str";
    case Value::Kind::kList:
      return v.is_tuple() ? "tuple" : "list";
    case Value::Kind::kDict:
      return "dict";
    case Value::Kind::kCallable:
      return "function";
    case Value::Kind::kObject:
      return v.AsObject().TypeName();
  }
  return "object";
}

std::string ToStr(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kUndefined:
      return "";
    case Value::Kind::kNone:
      return "None";
    case Value::Kind::kBool:
      return v.AsBool() ? "True" : "False";
    case Value::Kind::kInt:
      return std::to_string(v.AsInt());
    case Value::Kind::kFloat:
      return FloatRepr(v.AsFloat());
    case Value::Kind::kString:
      return v.AsString();
    case Value::Kind::kCallable:
      return "<" + v.AsCallable().Name() + ">";
    case Value::Kind::kObject:
      return v.AsObject().Repr();
    default:
      return Repr(v);
  }
}

std::string Repr(const Value& v) {
  std::string out;
  AppendRepr(out, v);
  return out;
}

}  // namespace orcd::jinja
