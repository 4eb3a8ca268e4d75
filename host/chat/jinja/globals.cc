#include "host/chat/jinja/globals.h"

#include <array>
#include <cstdio>
#include <memory>

#include "host/chat/jinja/call_args.h"
#include "host/chat/jinja/operators.h"
#include "host/chat/jinja/py_format.h"
#include "host/chat/jinja/renderer.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

using GlobalFn = Value (*)(Renderer& renderer, const CallArgs& args);

class GlobalFunction : public Callable {
 public:
  GlobalFunction(std::string name, GlobalFn fn) : name_(std::move(name)), fn_(fn) {}
  std::string Name() const override { return "function " + name_; }
  Value Call(Renderer& renderer, CallArgs args) const override { return fn_(renderer, args); }

 private:
  std::string name_;
  GlobalFn fn_;
};

// dict(mapping_or_pairs, **kwargs), as dict() and namespace() take them.
Dict DictFromArgs(const CallArgs& args, std::string_view function) {
  if (args.positional.size() > 1) {
    throw TemplateError(ErrorKind::kType, std::string(function) + " expected at most 1 argument");
  }
  Dict out;
  if (!args.positional.empty()) {
    const Value& init = args.positional[0];
    if (init.is_dict()) {
      out = init.AsDict();
    } else {
      for (const Value& pair : Iterate(init)) {
        const ValueList kv = Iterate(pair);
        if (kv.size() != 2 || !kv[0].is_string()) {
          throw TemplateError(
              ErrorKind::kValue,
              std::string(function) + ": each element must be a (string key, value) pair");
        }
        out.Set(kv[0].AsString(), kv[1]);
      }
    }
  }
  for (const auto& [key, value] : args.keywords) out.Set(key, value);
  return out;
}

Value Range(Renderer& /*renderer*/, const CallArgs& args) {
  ArgReader a("range", args);
  int64_t start = 0;
  int64_t stop = 0;
  int64_t step = 1;
  if (args.positional.size() <= 1) {
    stop = a.TakeInt(0, "stop", 0);
  } else {
    start = a.TakeInt(0, "start", 0);
    stop = a.TakeInt(1, "stop", 0);
    step = a.TakeInt(2, "step", 1);
  }
  a.Finish();
  if (step == 0) throw TemplateError(ErrorKind::kValue, "range() arg 3 must not be zero");
  const auto span = static_cast<long double>(stop) - static_cast<long double>(start);
  const long double count = span / static_cast<long double>(step);
  if (count > static_cast<long double>(kMaxRange)) {
    throw TemplateError(ErrorKind::kLimit,
                        "Range too big. The sandbox blocks ranges larger than MAX_RANGE (" +
                            std::to_string(kMaxRange) + ").");
  }
  ValueList items;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) items.emplace_back(i);
  return Value::List(std::move(items));
}

Value DictGlobal(Renderer& /*renderer*/, const CallArgs& args) {
  return Value::FromDict(DictFromArgs(args, "dict"));
}

Value NamespaceGlobal(Renderer& renderer, const CallArgs& args) {
  auto ns = std::make_shared<Namespace>(DictFromArgs(args, "namespace"));
  renderer.Track(ns);
  return Value::FromObject(std::move(ns));
}

Value RaiseException(Renderer& /*renderer*/, const CallArgs& args) {
  ArgReader a("raise_exception", args);
  const Value message = a.Take(0, "message", Value(""));
  throw TemplateError(ErrorKind::kRaised, ToStr(message));
}

Value StrftimeNow(Renderer& renderer, const CallArgs& args) {
  ArgReader a("strftime_now", args);
  const std::string format = a.TakeString(0, "format", "");
  a.Finish();
  return Value(Strftime(format, renderer.Now()));
}

class Cycler : public Object, public std::enable_shared_from_this<Cycler> {
 public:
  explicit Cycler(ValueList items) : items_(std::move(items)) {}
  std::string TypeName() const override { return "Cycler"; }
  Value GetAttr(std::string_view name) const override;
  Value Current() const { return items_.empty() ? Value::None() : items_[pos_ % items_.size()]; }
  Value Advance() {
    Value v = Current();
    ++pos_;
    return v;
  }
  void Reset() { pos_ = 0; }

 private:
  ValueList items_;
  size_t pos_ = 0;
};

// cycler.next / cycler.reset, holding the cycler they change.
class CyclerMethod : public Callable {
 public:
  CyclerMethod(std::shared_ptr<Cycler> self, bool reset) : self_(std::move(self)), reset_(reset) {}
  std::string Name() const override { return reset_ ? "Cycler.reset" : "Cycler.next"; }
  Value Call(Renderer& /*renderer*/, CallArgs /*args*/) const override {
    if (reset_) {
      self_->Reset();
      return Value::None();
    }
    return self_->Advance();
  }

 private:
  std::shared_ptr<Cycler> self_;
  bool reset_;
};

Value Cycler::GetAttr(std::string_view name) const {
  if (name == "current") return Current();
  if (name == "next" || name == "reset") {
    auto self = std::const_pointer_cast<Cycler>(shared_from_this());
    return Value::FromCallable(std::make_shared<CyclerMethod>(std::move(self), name == "reset"));
  }
  return Value::Undefined("'Cycler object' has no attribute '" + std::string(name) + "'");
}

Value CyclerGlobal(Renderer& /*renderer*/, const CallArgs& args) {
  if (!args.keywords.empty())
    throw TemplateError(ErrorKind::kType, "cycler() takes no keyword arguments");
  return Value::FromObject(std::make_shared<Cycler>(args.positional));
}

// joiner(sep): "" on the first call, sep after.
class Joiner : public Callable {
 public:
  explicit Joiner(std::string sep) : sep_(std::move(sep)) {}
  std::string Name() const override { return "joiner"; }
  Value Call(Renderer& /*renderer*/, CallArgs /*args*/) const override {
    if (!used_) {
      used_ = true;
      return Value("");
    }
    return Value(sep_);
  }

 private:
  std::string sep_;
  mutable bool used_ = false;
};

Value JoinerGlobal(Renderer& /*renderer*/, const CallArgs& args) {
  ArgReader a("joiner", args);
  std::string sep = a.TakeString(0, "sep", ", ");
  a.Finish();
  return Value::FromCallable(std::make_shared<Joiner>(std::move(sep)));
}

constexpr std::array<const char*, 7> kDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                              "Thursday", "Friday", "Saturday"};
constexpr std::array<const char*, 12> kMonths = {"January",   "February", "March",    "April",
                                                 "May",       "June",     "July",     "August",
                                                 "September", "October",  "November", "December"};

std::string Num(int value, int width, char pad = '0') {
  std::string s = std::to_string(value);
  while (static_cast<int>(s.size()) < width) s.insert(s.begin(), pad);
  return s;
}

}  // namespace

Value Namespace::GetAttr(std::string_view name) const {
  if (const Value* v = attrs_.Find(name)) return *v;
  return Value::Undefined("'Namespace object' has no attribute '" + std::string(name) + "'");
}

bool Namespace::SetAttr(std::string_view name, Value value) {
  attrs_.Set(std::string(name), std::move(value));
  return true;
}

std::string Namespace::Repr() const {
  return "<Namespace " + jinja::Repr(Value::FromDict(attrs_)) + ">";
}

std::string Strftime(std::string_view format, const std::tm& t) {
  std::string out;
  const int wday = ((t.tm_wday % 7) + 7) % 7;
  const int mon = ((t.tm_mon % 12) + 12) % 12;
  const int hour12 = t.tm_hour % 12 == 0 ? 12 : t.tm_hour % 12;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 >= format.size()) {
      out += format[i];
      continue;
    }
    const char c = format[++i];
    switch (c) {
      case 'Y':
        out += std::to_string(t.tm_year + 1900);
        break;
      case 'y':
        out += Num((t.tm_year + 1900) % 100, 2);
        break;
      case 'm':
        out += Num(mon + 1, 2);
        break;
      case 'd':
        out += Num(t.tm_mday, 2);
        break;
      case 'e':
        out += Num(t.tm_mday, 2, ' ');
        break;
      case 'H':
        out += Num(t.tm_hour, 2);
        break;
      case 'I':
        out += Num(hour12, 2);
        break;
      case 'M':
        out += Num(t.tm_min, 2);
        break;
      case 'S':
        out += Num(t.tm_sec, 2);
        break;
      case 'f':
        out += "000000";
        break;
      case 'p':
        out += t.tm_hour < 12 ? "AM" : "PM";
        break;
      case 'j':
        out += Num(t.tm_yday + 1, 3);
        break;
      case 'a':
        out += std::string(kDays[static_cast<size_t>(wday)]).substr(0, 3);
        break;
      case 'A':
        out += kDays[static_cast<size_t>(wday)];
        break;
      case 'b':
      case 'h':
        out += std::string(kMonths[static_cast<size_t>(mon)]).substr(0, 3);
        break;
      case 'B':
        out += kMonths[static_cast<size_t>(mon)];
        break;
      case 'w':
        out += std::to_string(wday);
        break;
      case 'u':
        out += std::to_string(wday == 0 ? 7 : wday);
        break;
      case 'F':
        out += Strftime("%Y-%m-%d", t);
        break;
      case 'T':
        out += Strftime("%H:%M:%S", t);
        break;
      case 'D':
      case 'x':
        out += Strftime("%m/%d/%y", t);
        break;
      case 'X':
        out += Strftime("%H:%M:%S", t);
        break;
      case 'c':
        out += Strftime("%a %b %e %H:%M:%S %Y", t);
        break;
      case 'z':
      case 'Z':
        break;  // a naive datetime has no zone
      case '%':
        out += '%';
        break;
      default:
        out += '%';
        out += c;
    }
  }
  return out;
}

const Value* FindGlobal(std::string_view name) {
  struct Entry {
    std::string_view name;
    Value value;
  };
  static const std::array<Entry, 7> kGlobals = [] {
    auto fn = [](const char* n, GlobalFn f) {
      return Entry{n, Value::FromCallable(std::make_shared<GlobalFunction>(n, f))};
    };
    return std::array<Entry, 7>{
        fn("range", Range),
        fn("dict", DictGlobal),
        fn("namespace", NamespaceGlobal),
        fn("cycler", CyclerGlobal),
        fn("joiner", JoinerGlobal),
        fn("raise_exception", RaiseException),
        fn("strftime_now", StrftimeNow),
    };
  }();
  for (const Entry& e : kGlobals) {
    if (e.name == name) return &e.value;
  }
  return nullptr;
}

}  // namespace orcd::jinja
