// JSON to template values with object key order kept (Poco::JSON with
// preserved insertion order), integers and floats kept apart, as Python's
// json.loads gives them to jinja2.
#ifndef ORCD_HOST_CHAT_JINJA_JSON_VALUE_H_
#define ORCD_HOST_CHAT_JINJA_JSON_VALUE_H_

#include <string_view>

#include <Poco/Dynamic/Var.h>

#include "host/chat/jinja/value.h"

namespace orcd::jinja {

// Deepest JSON nesting accepted.
inline constexpr int kMaxJsonDepth = 256;

// Throws orcd::Error(kInvalidArgument) for malformed or too deeply nested JSON.
Value ParseJsonValue(std::string_view text);
// A value Poco::JSON parsed (objects parsed with preserveInsertionOrder keep
// their order).
Value ValueFromJson(const Poco::Dynamic::Var& json);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_JSON_VALUE_H_
