// Python methods of str, dict and list as templates call them
// ("x".strip(), message.get("content"), tool.items()). Methods that would
// change a list or dict are refused, as ImmutableSandboxedEnvironment does.
#ifndef ORCD_HOST_CHAT_JINJA_METHODS_H_
#define ORCD_HOST_CHAT_JINJA_METHODS_H_

#include <optional>
#include <string_view>

#include "host/chat/jinja/value.h"

namespace orcd::jinja {

// obj.name as a bound method; nullopt when obj's type has no such method.
// A Python method this engine does not implement binds to a callable that
// fails with kUnsupported; a mutating one to a callable that fails with
// kSecurity.
std::optional<Value> FindMethod(const Value& obj, std::string_view name);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_METHODS_H_
