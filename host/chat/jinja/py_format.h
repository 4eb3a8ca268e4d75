// Python's text forms of values: repr() of floats (shortest round trip, the
// 1e+16 / 1e-05 switch points) and of strings, and the `%` operator.
#ifndef ORCD_HOST_CHAT_JINJA_PY_FORMAT_H_
#define ORCD_HOST_CHAT_JINJA_PY_FORMAT_H_

#include <string>
#include <string_view>

#include "host/chat/jinja/value.h"

namespace orcd::jinja {

// repr(float): "1.0", "0.1", "1e+16", "1e-05", "inf", "nan", "-0.0".
std::string FloatRepr(double x);
// repr(str): quoted with ' (or " when only ' occurs), escapes as CPython.
std::string StringRepr(std::string_view s);
// format % args (printf-style): args a tuple, a dict for %(name)s, or one value.
std::string PercentFormat(std::string_view format, const Value& args);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_PY_FORMAT_H_
