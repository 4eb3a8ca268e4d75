// Variable scopes as jinja2 nests them: the render variables at the bottom,
// the template's top level above them, then one scope per macro call, per
// loop iteration and per with block. {% set %} writes the innermost scope, so
// what a loop body sets is gone after the iteration.
#ifndef ORCD_HOST_CHAT_JINJA_SCOPE_H_
#define ORCD_HOST_CHAT_JINJA_SCOPE_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/chat/jinja/value.h"

namespace orcd::jinja {

class Scope {
 public:
  explicit Scope(std::shared_ptr<const Scope> parent) : parent_(std::move(parent)) {}

  // The innermost binding of name; nullptr when none.
  const Value* Find(std::string_view name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent_.get()) {
      for (const auto& [key, value] : s->vars_) {
        if (key == name) return &value;
      }
    }
    return nullptr;
  }

  void Set(std::string_view name, Value value) {
    for (auto& [key, old] : vars_) {
      if (key == name) {
        old = std::move(value);
        return;
      }
    }
    vars_.emplace_back(std::string(name), std::move(value));
  }

 private:
  std::shared_ptr<const Scope> parent_;
  std::vector<std::pair<std::string, Value>> vars_;
};

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_SCOPE_H_
