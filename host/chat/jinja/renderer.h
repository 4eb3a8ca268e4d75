// Renders a parsed template: statements in renderer.cc, expressions in
// evaluator.cc. One Renderer per render call; it owns the scopes, the output
// and the budgets that keep an untrusted template from running away.
#ifndef ORCD_HOST_CHAT_JINJA_RENDERER_H_
#define ORCD_HOST_CHAT_JINJA_RENDERER_H_

#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/chat/jinja/ast.h"
#include "host/chat/jinja/value.h"

namespace orcd::jinja {

class Scope;

// Bounds on one render. Reaching one raises TemplateError(kLimit).
struct Limits {
  size_t max_output_bytes = 16u << 20;          // the rendered text (and any one string)
  uint64_t max_loop_iterations = 1'000'000;     // all loops of the render together
  int max_call_depth = 64;                      // nested macro calls
  uint64_t max_work_bytes = uint64_t{1} << 30;  // all strings built, together
};

struct RenderOptions {
  Limits limits;
  // strftime_now's clock (local time); empty: the real clock.
  std::function<std::tm()> now;
};

class Renderer {
 public:
  Renderer(const Body& program, const RenderOptions& options);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  std::string Render(const Dict& variables);

  // For builtins (filters, methods, globals).
  Value Call(const Value& callee, CallArgs args);
  Value CallMacro(const MacroDef& macro, const std::shared_ptr<const Scope>& closure,
                  CallArgs args);
  void ChargeWork(uint64_t bytes);
  // Objects released when the render ends (namespaces: see Object::Release).
  void Track(std::shared_ptr<Object> object) { tracked_.push_back(std::move(object)); }
  void CountIterations(uint64_t n);
  std::tm Now() const;
  // The most bytes one string a builtin builds may have.
  size_t max_bytes() const { return options_.limits.max_output_bytes; }

 private:
  enum class Flow { kNormal, kBreak, kContinue };

  // Statements (renderer.cc).
  Flow RenderBody(const Body& body);
  Flow RenderNode(const Node& node);
  Flow RenderNodeInner(const Node& node);
  Flow RenderFor(const Node& node);
  void Emit(std::string_view text);
  std::string Capture(const Body& body);
  void Assign(const Target& target, const Value& value);
  void Bind(Scope& scope, const Target& target, const Value& value);

  // Expressions (evaluator.cc).
  Value Eval(const Expr& e);
  Value EvalInner(const Expr& e);
  Value EvalCall(const Expr& e, const Value* caller);
  CallArgs EvalArgs(const CallSyntax& call);
  Value EvalFilter(const Expr& e, const Value* input);
  Value Lookup(std::string_view name) const;
  Value Checked(Value v);

  // Statements plus expressions nested at once, across macro calls: bounds
  // the native stack whatever the template does.
  static constexpr int kMaxNesting = 1000;
  class NestingGuard {
   public:
    explicit NestingGuard(Renderer& r) : r_(r) {
      if (++r_.nesting_ > kMaxNesting) {
        --r_.nesting_;
        TooDeep();
      }
    }
    ~NestingGuard() { --r_.nesting_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    Renderer& r_;
  };
  [[noreturn]] static void TooDeep();

  const Body& program_;
  RenderOptions options_;
  std::shared_ptr<Scope> scope_;
  std::shared_ptr<Scope> root_;
  std::string* out_ = nullptr;
  uint64_t iterations_ = 0;
  uint64_t work_ = 0;
  int call_depth_ = 0;
  int nesting_ = 0;
  std::vector<std::shared_ptr<Object>> tracked_;
};

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_RENDERER_H_
