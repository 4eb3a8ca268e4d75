// The values a chat template computes with: Python's JSON-shaped types plus
// jinja2's lenient Undefined, callables (macros, builtins, bound methods) and
// objects with attributes (namespace(), loop, cycler). Strings, lists and
// dicts are immutable and shared, as in ImmutableSandboxedEnvironment; only a
// namespace changes in place.
#ifndef ORCD_HOST_CHAT_JINJA_VALUE_H_
#define ORCD_HOST_CHAT_JINJA_VALUE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace orcd::jinja {

class Value;
class Dict;
class Callable;
class Object;
class Renderer;

using ValueList = std::vector<Value>;

// Deepest nesting of lists and dicts a value may have. Deeper ones are
// refused when built (TemplateError kLimit), so that printing, comparing and
// freeing them never recurses without bound.
inline constexpr int kMaxValueDepth = 512;

class Value {
 public:
  // The order is the variant's: kind() is its index.
  enum class Kind : uint8_t {
    kUndefined,
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kList,  // list or tuple
    kDict,
    kCallable,
    kObject,
  };

  Value() = default;  // undefined, without a hint
  // hint: what was missing, for the error raised when the value is used.
  static Value Undefined(std::string hint);
  static Value None() { return Value(NoneTag{}); }
  Value(bool b) : v_(b) {}
  Value(int i) : v_(int64_t{i}) {}
  Value(int64_t i) : v_(i) {}
  Value(double d) : v_(d) {}
  Value(std::string s) : v_(std::make_shared<const std::string>(std::move(s))) {}
  Value(std::string_view s) : Value(std::string(s)) {}
  Value(const char* s) : Value(std::string(s)) {}
  static Value List(ValueList items) { return Value(MakeList(std::move(items), false)); }
  static Value Tuple(ValueList items) { return Value(MakeList(std::move(items), true)); }
  static Value FromDict(Dict dict);
  static Value FromCallable(std::shared_ptr<const Callable> callable) {
    return Value(std::move(callable));
  }
  static Value FromObject(std::shared_ptr<Object> object) { return Value(std::move(object)); }

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_undefined() const { return kind() == Kind::kUndefined; }
  bool is_none() const { return kind() == Kind::kNone; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_int() const { return kind() == Kind::kInt; }
  bool is_float() const { return kind() == Kind::kFloat; }
  // bool, int or float: Python's numbers (bool is an int there).
  bool is_number() const { return is_bool() || is_int() || is_float(); }
  // bool or int.
  bool is_integral() const { return is_bool() || is_int(); }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_list() const { return kind() == Kind::kList; }
  bool is_tuple() const { return is_list() && std::get<ListPtr>(v_)->tuple; }
  bool is_dict() const { return kind() == Kind::kDict; }
  bool is_callable() const { return kind() == Kind::kCallable; }
  bool is_object() const { return kind() == Kind::kObject; }

  bool AsBool() const { return std::get<bool>(v_); }
  // bool or int as int64.
  int64_t AsInt() const { return is_bool() ? int64_t{AsBool()} : std::get<int64_t>(v_); }
  // Any number as double.
  double AsFloat() const {
    return is_float() ? std::get<double>(v_) : static_cast<double>(AsInt());
  }
  const std::string& AsString() const { return *std::get<StringPtr>(v_); }
  const ValueList& AsList() const { return std::get<ListPtr>(v_)->items; }
  const Dict& AsDict() const { return *std::get<DictPtr>(v_); }
  const Callable& AsCallable() const { return *std::get<CallablePtr>(v_); }
  Object& AsObject() const { return *std::get<ObjectPtr>(v_); }
  // Why the value is undefined ("'x' is undefined"); empty when not known.
  const std::string& undefined_hint() const;

  // Python's `is`: equal scalars, or the same shared object.
  bool SameAs(const Value& other) const;
  // Levels of list / dict nesting: 0 for a scalar, 1 for a flat list.
  int NestingDepth() const;

 private:
  struct UndefinedData {
    std::shared_ptr<const std::string> hint;
  };
  struct NoneTag {};
  struct ListBox {
    ValueList items;
    bool tuple = false;
    int depth = 1;
  };
  using StringPtr = std::shared_ptr<const std::string>;
  using ListPtr = std::shared_ptr<const ListBox>;
  using DictPtr = std::shared_ptr<const Dict>;
  using CallablePtr = std::shared_ptr<const Callable>;
  using ObjectPtr = std::shared_ptr<Object>;

  static ListPtr MakeList(ValueList items, bool tuple);
  explicit Value(NoneTag t) : v_(t) {}
  explicit Value(UndefinedData u) : v_(std::move(u)) {}
  explicit Value(ListPtr p) : v_(std::move(p)) {}
  explicit Value(DictPtr p) : v_(std::move(p)) {}
  explicit Value(CallablePtr p) : v_(std::move(p)) {}
  explicit Value(ObjectPtr p) : v_(std::move(p)) {}

  std::variant<UndefinedData, NoneTag, bool, int64_t, double, StringPtr, ListPtr, DictPtr,
               CallablePtr, ObjectPtr>
      v_;
};

// A dict with string keys in insertion order (Python 3.7+ dicts, JSON
// objects as parsed). Keys of other types are not supported.
class Dict {
 public:
  using Entry = std::pair<std::string, Value>;

  const Value* Find(std::string_view key) const;
  // Replaces the value of an existing key in place, else appends.
  void Set(std::string key, Value value);
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const std::vector<Entry>& entries() const { return entries_; }
  int depth() const { return depth_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> index_;
  int depth_ = 1;
};

// Arguments of a call: positional, then keyword in the order written.
struct CallArgs {
  ValueList positional;
  std::vector<std::pair<std::string, Value>> keywords;
};

// Macros, global functions, bound methods.
class Callable {
 public:
  virtual ~Callable() = default;
  virtual std::string Name() const = 0;
  virtual Value Call(Renderer& renderer, CallArgs args) const = 0;
};

// Something with attributes: namespace(), loop, cycler, joiner.
class Object {
 public:
  virtual ~Object() = default;
  virtual std::string TypeName() const = 0;
  // Undefined when absent.
  virtual Value GetAttr(std::string_view name) const = 0;
  // False when the object does not take assignments (only a namespace does).
  virtual bool SetAttr(std::string_view /*name*/, Value /*value*/) { return false; }
  virtual std::string Repr() const { return "<" + TypeName() + " object>"; }
  // Drops what the object holds at the end of a render, so that a namespace
  // made to contain itself does not outlive it.
  virtual void Release() {}
};

// Python truthiness; undefined is false.
bool Truthy(const Value& v);
// Python's type name as jinja2 messages use it: "str", "int", "dict", "NoneType".
std::string TypeName(const Value& v);
// str(v): undefined prints as "", None as "None", lists and dicts as repr.
std::string ToStr(const Value& v);
// repr(v).
std::string Repr(const Value& v);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_VALUE_H_
