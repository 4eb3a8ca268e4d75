// The global names a chat template sees besides its render variables:
// jinja2's range, dict, namespace, cycler, joiner, and transformers'
// raise_exception and strftime_now. Nothing reaches files or the environment.
#ifndef ORCD_HOST_CHAT_JINJA_GLOBALS_H_
#define ORCD_HOST_CHAT_JINJA_GLOBALS_H_

#include <ctime>
#include <string>
#include <string_view>

#include "host/chat/jinja/value.h"

namespace orcd::jinja {

// jinja2's sandbox refuses range() longer than this (MAX_RANGE).
inline constexpr int64_t kMaxRange = 100000;

// The global called `name`; nullptr when there is none.
const Value* FindGlobal(std::string_view name);

// namespace(): attributes that {% set ns.x = ... %} may change.
class Namespace : public Object {
 public:
  explicit Namespace(Dict attrs) : attrs_(std::move(attrs)) {}
  std::string TypeName() const override { return "Namespace"; }
  Value GetAttr(std::string_view name) const override;
  bool SetAttr(std::string_view name, Value value) override;
  std::string Repr() const override;
  void Release() override { attrs_ = Dict(); }

 private:
  Dict attrs_;
};

// strftime as Python's datetime.strftime under the C locale: %Y %m %d %H %M
// %S %y %b %B %a %A %j %p %I %f %e %%; other directives pass through.
std::string Strftime(std::string_view format, const std::tm& time);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_GLOBALS_H_
