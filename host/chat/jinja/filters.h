// jinja2's builtin filters (x|trim, x|tojson, ...) and tests (x is defined,
// x is string, ...), with tojson replaced by transformers' version. Names
// are checked when the template is parsed; what jinja2 has and this engine
// does not implement is refused there, naming the line.
#ifndef ORCD_HOST_CHAT_JINJA_FILTERS_H_
#define ORCD_HOST_CHAT_JINJA_FILTERS_H_

#include <string_view>

#include "host/chat/jinja/value.h"

namespace orcd::jinja {

enum class Availability { kAvailable, kUnsupported, kUnknown };

Availability FilterAvailability(std::string_view name);
Availability TestAvailability(std::string_view name);

// Filters (filters.cc).
Value ApplyFilter(Renderer& renderer, std::string_view name, const Value& operand,
                  const CallArgs& args);
// Tests (value_tests.cc).
bool ApplyTest(Renderer& renderer, std::string_view name, const Value& operand,
               const CallArgs& args);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_FILTERS_H_
