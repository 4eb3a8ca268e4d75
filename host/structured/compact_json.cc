#include "host/structured/compact_json.h"

#include <cmath>
#include <cstdio>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include "host/common/json_escape.h"

namespace orcd::structured {

std::string CompactJson(const Poco::Dynamic::Var& value) {
  if (value.isEmpty()) return "null";
  if (value.type() == typeid(Poco::JSON::Object::Ptr)) {
    const auto object = value.extract<Poco::JSON::Object::Ptr>();
    std::string out = "{";
    bool first = true;
    for (const std::string& key : object->getNames()) {  // in order when the parser kept it
      if (!first) out += ',';
      first = false;
      out += JsonQuote(key) + ":" + CompactJson(object->get(key));
    }
    return out + "}";
  }
  if (value.type() == typeid(Poco::JSON::Array::Ptr)) {
    const auto array = value.extract<Poco::JSON::Array::Ptr>();
    std::string out = "[";
    for (size_t i = 0; i < array->size(); ++i) {
      if (i > 0) out += ',';
      out += CompactJson(array->get(static_cast<unsigned>(i)));
    }
    return out + "]";
  }
  if (value.isString()) return JsonQuote(value.extract<std::string>());
  if (value.isBoolean()) return value.convert<bool>() ? "true" : "false";
  if (value.isInteger()) return value.convert<std::string>();
  if (value.isNumeric()) {
    const double d = value.convert<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f", d);
      return buf;
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    return buf;
  }
  return JsonQuote(value.convert<std::string>());
}

}  // namespace orcd::structured
