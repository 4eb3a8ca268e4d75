#include "host/chat/jinja/renderer.h"

#include <algorithm>
#include <chrono>

#include "host/chat/jinja/operators.h"
#include "host/chat/jinja/scope.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

[[noreturn]] void Limit(const std::string& message) {
  throw TemplateError(ErrorKind::kLimit, message);
}

// The `loop` variable of a for loop.
class LoopObject : public Object, public std::enable_shared_from_this<LoopObject> {
 public:
  explicit LoopObject(std::shared_ptr<const ValueList> items) : items_(std::move(items)) {}
  std::string TypeName() const override { return "LoopContext"; }
  std::string Repr() const override {
    return "<LoopContext " + std::to_string(index_ + 1) + "/" + std::to_string(items_->size()) +
           ">";
  }
  Value GetAttr(std::string_view name) const override;
  void set_index(size_t i) { index_ = i; }
  size_t index() const { return index_; }
  // loop.changed(*values): true when the values differ from the last call's.
  bool Changed(const ValueList& values) {
    const Value now = Value::List(values);
    const bool changed = !has_last_ || !PyEquals(last_, now);
    last_ = now;
    has_last_ = true;
    return changed;
  }

 private:
  std::shared_ptr<const ValueList> items_;  // owned: the object may outlive the loop
  size_t index_ = 0;
  Value last_;
  bool has_last_ = false;
};

class LoopMethod : public Callable {
 public:
  LoopMethod(std::shared_ptr<LoopObject> loop, bool cycle)
      : loop_(std::move(loop)), cycle_(cycle) {}
  std::string Name() const override { return cycle_ ? "LoopContext.cycle" : "LoopContext.changed"; }
  Value Call(Renderer& /*renderer*/, CallArgs args) const override {
    if (!cycle_) return Value(loop_->Changed(args.positional));
    if (args.positional.empty())
      throw TemplateError(ErrorKind::kType, "no items for cycling given");
    return args.positional[loop_->index() % args.positional.size()];
  }

 private:
  std::shared_ptr<LoopObject> loop_;
  bool cycle_;
};

Value LoopObject::GetAttr(std::string_view name) const {
  const ValueList& items = *items_;
  const auto n = static_cast<int64_t>(items.size());
  const auto i = static_cast<int64_t>(index_);
  if (name == "index") return Value(i + 1);
  if (name == "index0") return Value(i);
  if (name == "revindex") return Value(n - i);
  if (name == "revindex0") return Value(n - i - 1);
  if (name == "first") return Value(i == 0);
  if (name == "last") return Value(i == n - 1);
  if (name == "length") return Value(n);
  if (name == "depth") return Value(1);
  if (name == "depth0") return Value(0);
  if (name == "previtem") {
    return i > 0 ? items[index_ - 1] : Value::Undefined("there is no previous item");
  }
  if (name == "nextitem") {
    return i + 1 < n ? items[index_ + 1] : Value::Undefined("there is no next item");
  }
  if (name == "cycle" || name == "changed") {
    auto self = std::const_pointer_cast<LoopObject>(shared_from_this());
    return Value::FromCallable(std::make_shared<LoopMethod>(std::move(self), name == "cycle"));
  }
  return Value::Undefined("'LoopContext object' has no attribute '" + std::string(name) + "'");
}

// A macro (or a call block's caller). It refers to its defining scope weakly:
// the scope usually holds the macro, and a strong reference would be a cycle.
class MacroCallable : public Callable {
 public:
  MacroCallable(const MacroDef& def, std::weak_ptr<const Scope> closure)
      : def_(def), closure_(std::move(closure)) {}
  std::string Name() const override { return "Macro '" + def_.name + "'"; }
  Value Call(Renderer& renderer, CallArgs args) const override {
    const std::shared_ptr<const Scope> closure = closure_.lock();
    if (!closure) {
      throw TemplateError(ErrorKind::kUnsupported,
                          "macro '" + def_.name + "' called after the block that defined it ended");
    }
    return renderer.CallMacro(def_, closure, std::move(args));
  }

 private:
  const MacroDef& def_;
  std::weak_ptr<const Scope> closure_;
};

}  // namespace

void Renderer::TooDeep() {
  Limit("template evaluation nests deeper than " + std::to_string(kMaxNesting) + " levels");
}

Renderer::Renderer(const Body& program, const RenderOptions& options)
    : program_(program), options_(options) {}

Renderer::~Renderer() {
  for (const std::shared_ptr<Object>& o : tracked_) o->Release();
}

std::string Renderer::Render(const Dict& variables) {
  auto globals = std::make_shared<Scope>(nullptr);
  for (const auto& [name, value] : variables.entries()) globals->Set(name, value);
  root_ = std::make_shared<Scope>(globals);
  scope_ = root_;
  std::string out;
  out_ = &out;
  RenderBody(program_);
  out_ = nullptr;
  return out;
}

void Renderer::ChargeWork(uint64_t bytes) {
  work_ += bytes;
  if (work_ > options_.limits.max_work_bytes) {
    Limit("the template built more than " + std::to_string(options_.limits.max_work_bytes) +
          " bytes of text");
  }
}

void Renderer::CountIterations(uint64_t n) {
  iterations_ += n;
  if (iterations_ > options_.limits.max_loop_iterations) {
    Limit("the template ran more than " + std::to_string(options_.limits.max_loop_iterations) +
          " loop iterations");
  }
}

std::tm Renderer::Now() const {
  if (options_.now) return options_.now();
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&t, &local);
  return local;
}

void Renderer::Emit(std::string_view text) {
  out_->append(text);
  ChargeWork(text.size());
  if (out_->size() > options_.limits.max_output_bytes) {
    Limit("the rendered text exceeds " + std::to_string(options_.limits.max_output_bytes) +
          " bytes");
  }
}

std::string Renderer::Capture(const Body& body) {
  std::string buffer;
  std::string* saved = out_;
  out_ = &buffer;
  try {
    RenderBody(body);
  } catch (...) {
    out_ = saved;
    throw;
  }
  out_ = saved;
  return buffer;
}

Renderer::Flow Renderer::RenderBody(const Body& body) {
  for (const NodePtr& node : body) {
    const Flow flow = RenderNode(*node);
    if (flow != Flow::kNormal) return flow;
  }
  return Flow::kNormal;
}

Renderer::Flow Renderer::RenderNode(const Node& node) {
  NestingGuard guard(*this);
  try {
    return RenderNodeInner(node);
  } catch (const TemplateError& e) {
    if (e.line() == 0) throw e.WithLine(node.line);
    throw;
  }
}

Renderer::Flow Renderer::RenderNodeInner(const Node& node) {
  switch (node.kind) {
    case NodeKind::kData:
      Emit(node.text);
      return Flow::kNormal;
    case NodeKind::kOutput:
      Emit(ToStr(Eval(*node.expr)));
      return Flow::kNormal;
    case NodeKind::kIf:
      for (const auto& [cond, body] : node.branches) {
        if (Truthy(Eval(*cond))) return RenderBody(body);
      }
      return RenderBody(node.else_body);
    case NodeKind::kFor:
      return RenderFor(node);
    case NodeKind::kSet:
      Assign(node.target, Eval(*node.expr));
      return Flow::kNormal;
    case NodeKind::kSetBlock: {
      Value value(Capture(node.body));
      if (node.filter) value = EvalFilter(*node.filter, &value);
      Assign(node.target, value);
      return Flow::kNormal;
    }
    case NodeKind::kMacro:
      scope_->Set(node.macro->name, Value::FromCallable(std::make_shared<MacroCallable>(
                                        *node.macro, std::weak_ptr<const Scope>(scope_))));
      return Flow::kNormal;
    case NodeKind::kCallBlock: {
      const Value caller = Value::FromCallable(
          std::make_shared<MacroCallable>(*node.macro, std::weak_ptr<const Scope>(scope_)));
      Emit(ToStr(EvalCall(*node.expr, &caller)));
      return Flow::kNormal;
    }
    case NodeKind::kFilterBlock: {
      const Value text(Capture(node.body));
      Emit(ToStr(EvalFilter(*node.filter, &text)));
      return Flow::kNormal;
    }
    case NodeKind::kWith: {
      ValueList values;
      for (const ExprPtr& e : node.with_values) values.push_back(Eval(*e));
      const std::shared_ptr<Scope> outer = scope_;
      scope_ = std::make_shared<Scope>(outer);
      for (size_t i = 0; i < values.size(); ++i) Bind(*scope_, node.with_targets[i], values[i]);
      Flow flow = Flow::kNormal;
      try {
        flow = RenderBody(node.body);
      } catch (...) {
        scope_ = outer;
        throw;
      }
      scope_ = outer;
      return flow;
    }
    case NodeKind::kScope:
      return RenderBody(node.body);
    case NodeKind::kBreak:
      return Flow::kBreak;
    case NodeKind::kContinue:
      return Flow::kContinue;
  }
  return Flow::kNormal;
}

Renderer::Flow Renderer::RenderFor(const Node& node) {
  const ValueList all = Iterate(Eval(*node.expr));
  const std::shared_ptr<Scope> outer = scope_;
  // The loop's `if` sees each item bound to the target, in a scope of its own.
  auto items = std::make_shared<ValueList>();
  if (node.filter) {
    for (const Value& item : all) {
      CountIterations(1);
      scope_ = std::make_shared<Scope>(outer);
      try {
        Bind(*scope_, node.target, item);
        if (Truthy(Eval(*node.filter))) items->push_back(item);
      } catch (...) {
        scope_ = outer;
        throw;
      }
    }
    scope_ = outer;
  } else {
    *items = all;
  }
  const auto loop = std::make_shared<LoopObject>(items);
  const Value loop_value = Value::FromObject(loop);
  try {
    for (size_t i = 0; i < items->size(); ++i) {
      CountIterations(1);
      // A fresh scope per iteration: what the body sets does not carry over.
      scope_ = std::make_shared<Scope>(outer);
      Bind(*scope_, node.target, (*items)[i]);
      loop->set_index(i);
      scope_->Set("loop", loop_value);
      if (RenderBody(node.body) == Flow::kBreak) break;
    }
  } catch (...) {
    scope_ = outer;
    throw;
  }
  scope_ = outer;
  if (items->empty()) return RenderBody(node.else_body);
  return Flow::kNormal;
}
void Renderer::Bind(Scope& scope, const Target& target, const Value& value) {
  if (!target.unpack) {
    scope.Set(target.names[0], value);
    return;
  }
  const ValueList items = Iterate(value);
  if (items.size() != target.names.size()) {
    throw TemplateError(
        ErrorKind::kValue,
        items.size() > target.names.size()
            ? "too many values to unpack (expected " + std::to_string(target.names.size()) + ")"
            : "not enough values to unpack (expected " + std::to_string(target.names.size()) +
                  ", got " + std::to_string(items.size()) + ")");
  }
  for (size_t i = 0; i < items.size(); ++i) scope.Set(target.names[i], items[i]);
}

void Renderer::Assign(const Target& target, const Value& value) {
  if (target.attribute.empty()) {
    Bind(*scope_, target, value);
    return;
  }
  const Value holder = Lookup(target.names[0]);
  if (!holder.is_object() || !holder.AsObject().SetAttr(target.attribute, value)) {
    throw TemplateError(ErrorKind::kType, "cannot assign attribute on non-namespace object");
  }
}

Value Renderer::Call(const Value& callee, CallArgs args) {
  if (callee.is_callable()) return callee.AsCallable().Call(*this, std::move(args));
  RequireDefined(callee);
  throw TemplateError(ErrorKind::kType, "'" + TypeName(callee) + "' object is not callable");
}

Value Renderer::CallMacro(const MacroDef& def, const std::shared_ptr<const Scope>& closure,
                          CallArgs args) {
  if (call_depth_ >= options_.limits.max_call_depth) {
    Limit("macro calls nest deeper than " + std::to_string(options_.limits.max_call_depth));
  }
  const auto scope = std::make_shared<Scope>(closure);
  const std::string who = "macro '" + def.name + "'";
  const size_t n = def.params.size();
  std::vector<bool> bound(n, false);
  for (size_t i = 0; i < args.positional.size() && i < n; ++i) {
    scope->Set(def.params[i], args.positional[i]);
    bound[i] = true;
  }
  ValueList varargs;
  for (size_t i = n; i < args.positional.size(); ++i) varargs.push_back(args.positional[i]);
  if (!varargs.empty() && !def.uses_varargs) {
    throw TemplateError(ErrorKind::kType,
                        who + " takes not more than " + std::to_string(n) + " argument(s)");
  }
  Dict kwargs;
  Value caller = Value::Undefined("no caller was passed to " + who);
  for (auto& [key, value] : args.keywords) {
    const auto it = std::find(def.params.begin(), def.params.end(), key);
    if (it != def.params.end()) {
      const auto i = static_cast<size_t>(it - def.params.begin());
      if (bound[i])
        throw TemplateError(ErrorKind::kType,
                            who + " got multiple values for argument '" + key + "'");
      scope->Set(key, value);
      bound[i] = true;
    } else if (key == "caller" && def.uses_caller) {
      caller = value;
    } else if (def.uses_kwargs) {
      kwargs.Set(key, value);
    } else {
      throw TemplateError(ErrorKind::kType, who + " takes no keyword argument '" + key + "'");
    }
  }
  const std::shared_ptr<Scope> saved = scope_;
  ++call_depth_;
  std::string result;
  try {
    scope_ = scope;
    // Defaults are evaluated at call time and may read earlier parameters.
    const size_t first_default = n - def.defaults.size();
    for (size_t i = 0; i < n; ++i) {
      if (bound[i]) continue;
      scope->Set(def.params[i],
                 i >= first_default
                     ? Eval(*def.defaults[i - first_default])
                     : Value::Undefined("parameter '" + def.params[i] + "' was not provided"));
    }
    if (def.uses_varargs) scope->Set("varargs", Value::Tuple(std::move(varargs)));
    if (def.uses_kwargs) scope->Set("kwargs", Value::FromDict(std::move(kwargs)));
    if (def.uses_caller) scope->Set("caller", caller);
    result = Capture(def.body);
  } catch (...) {
    scope_ = saved;
    --call_depth_;
    throw;
  }
  scope_ = saved;
  --call_depth_;
  return Value(std::move(result));
}

}  // namespace orcd::jinja
