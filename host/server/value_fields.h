// Readers for request bodies parsed as template values (jinja::Value keeps
// JSON objects' key order, which chat templates see): like the typed
// readers of request_validation.h, they refuse other types through
// FailField, naming the field.
#ifndef ORCD_HOST_SERVER_VALUE_FIELDS_H_
#define ORCD_HOST_SERVER_VALUE_FIELDS_H_

#include <string>
#include <string_view>

#include "host/chat/jinja/json_value.h"
#include "host/chat/jinja/value.h"
#include "host/common/status.h"
#include "host/server/request_validation.h"

namespace orcd {

// The body as a template value, objects' key order kept; invalid JSON is
// refused (field "").
inline jinja::Value ParseBodyValue(const std::string& body) {
  try {
    return jinja::ParseJsonValue(body);
  } catch (const Error& e) {
    FailField("", std::string("invalid JSON: ") + e.what());
  }
}

// The member `key` unless it is absent or null.
inline const jinja::Value* PresentAt(const jinja::Dict& d, std::string_view key) {
  const jinja::Value* v = d.Find(key);
  return v == nullptr || v->is_none() ? nullptr : v;
}

inline const jinja::Dict& ObjectAt(const jinja::Value& v, const std::string& field) {
  if (!v.is_dict()) FailField(field, "must be an object");
  return v.AsDict();
}

inline const std::string& StringAt(const jinja::Dict& d, std::string_view key,
                                   const std::string& field) {
  const jinja::Value* v = d.Find(key);
  if (v == nullptr || !v->is_string()) FailField(field, "must be a string");
  return v->AsString();
}

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_VALUE_FIELDS_H_
