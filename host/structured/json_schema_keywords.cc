#include "host/structured/json_schema_keywords.h"

#include <cmath>

#include "host/common/status.h"

namespace orcd::structured {

using Poco::Dynamic::Var;
using Object = Poco::JSON::Object::Ptr;
using Array = Poco::JSON::Array::Ptr;

[[noreturn]] void Refuse(const std::string& keyword, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument,
              "JSON schema keyword '" + keyword + "' " + why + " (see README: Structured output)");
}

// Keywords that describe without constraining.
const std::set<std::string>& Annotations() {
  static const std::set<std::string> names = {
      "title",    "description", "default",  "examples",  "$schema", "$id",        "id",
      "$comment", "deprecated",  "readOnly", "writeOnly", "$defs",   "definitions"};
  return names;
}

// What each instance type's keywords are.
const std::map<std::string, std::string>& KeywordTypes() {
  static const std::map<std::string, std::string> types = {
      {"properties", "object"}, {"required", "object"},   {"additionalProperties", "object"},
      {"items", "array"},       {"prefixItems", "array"}, {"additionalItems", "array"},
      {"minItems", "array"},    {"maxItems", "array"},    {"minLength", "string"},
      {"maxLength", "string"},  {"format", "string"},     {"pattern", "string"},
      {"minimum", "integer"},   {"maximum", "integer"}};
  return types;
}

const std::vector<std::string>& AllTypes() {
  static const std::vector<std::string> types = {"object",  "array",   "string", "number",
                                                 "integer", "boolean", "null"};
  return types;
}

bool IsObject(const Var& v) { return v.type() == typeid(Object); }
bool IsArray(const Var& v) { return v.type() == typeid(Array); }

// Whether `v` is an instance of JSON type `type`.
bool OfType(const Var& v, const std::string& type) {
  if (type == "object") return IsObject(v);
  if (type == "array") return IsArray(v);
  if (type == "null") return v.isEmpty();
  if (v.isEmpty() || IsObject(v) || IsArray(v)) return false;
  if (type == "string") return v.isString();
  if (type == "boolean") return v.isBoolean();
  if (v.isString() || v.isBoolean() || !v.isNumeric()) return false;
  if (type == "number") return true;
  if (type == "integer") {
    if (v.isInteger()) return true;
    const double d = v.convert<double>();
    return std::isfinite(d) && d == std::floor(d);
  }
  return false;
}

int64_t CountField(const Poco::JSON::Object::Ptr& s, const std::string& key) {
  const Var v = s->get(key);
  if (v.isString() || v.isBoolean() || !v.isNumeric() || v.convert<double>() < 0 ||
      v.convert<double>() > 10000 || v.convert<double>() != std::floor(v.convert<double>())) {
    Refuse(key, "must be a whole number from 0 to 10000 (the grammar holds a rule per count)");
  }
  return static_cast<int64_t>(v.convert<double>());
}

}  // namespace orcd::structured
