#include "host/chat/jinja/json_value.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/JSONException.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include <string>

#include "host/common/status.h"

namespace orcd::jinja {
namespace {

Value Convert(const Poco::Dynamic::Var& v, int depth) {
  if (depth > kMaxJsonDepth) {
    throw Error(ErrorCode::kInvalidArgument,
                "JSON nests deeper than " + std::to_string(kMaxJsonDepth));
  }
  if (v.isEmpty()) return Value::None();
  if (v.type() == typeid(Poco::JSON::Object::Ptr)) {
    const auto obj = v.extract<Poco::JSON::Object::Ptr>();
    Dict dict;
    for (const std::string& name : obj->getNames())
      dict.Set(name, Convert(obj->get(name), depth + 1));
    return Value::FromDict(std::move(dict));
  }
  if (v.type() == typeid(Poco::JSON::Array::Ptr)) {
    const auto arr = v.extract<Poco::JSON::Array::Ptr>();
    ValueList items;
    items.reserve(arr->size());
    for (size_t i = 0; i < arr->size(); ++i)
      items.push_back(Convert(arr->get(static_cast<unsigned>(i)), depth + 1));
    return Value::List(std::move(items));
  }
  if (v.isBoolean()) return Value(v.convert<bool>());
  if (v.isInteger()) {
    if (v.type() == typeid(Poco::UInt64) &&
        v.extract<Poco::UInt64>() > static_cast<Poco::UInt64>(INT64_MAX)) {
      return Value(static_cast<double>(v.extract<Poco::UInt64>()));
    }
    return Value(static_cast<int64_t>(v.convert<Poco::Int64>()));
  }
  if (v.isNumeric()) return Value(v.convert<double>());
  if (v.isString()) return Value(v.convert<std::string>());
  throw Error(ErrorCode::kInvalidArgument, "unexpected JSON value type");
}

}  // namespace

Value ValueFromJson(const Poco::Dynamic::Var& json) { return Convert(json, 0); }

Value ParseJsonValue(std::string_view text) {
  try {
    Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
    parser.setDepth(kMaxJsonDepth);
    return Convert(parser.parse(std::string(text)), 0);
  } catch (const Poco::Exception& e) {
    throw Error(ErrorCode::kInvalidArgument, "invalid JSON: " + e.displayText());
  }
}

}  // namespace orcd::jinja
