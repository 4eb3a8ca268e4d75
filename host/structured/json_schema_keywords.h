// The JSON Schema keywords the compiler knows (json_schema_grammar.h): which
// only describe, which constrain which instance type, the JSON types, and
// the checks of keyword values shared by the compiler's parts.
#ifndef ORCD_HOST_STRUCTURED_JSON_SCHEMA_KEYWORDS_H_
#define ORCD_HOST_STRUCTURED_JSON_SCHEMA_KEYWORDS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <Poco/Dynamic/Var.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

namespace orcd::structured {

// Throws Error(kInvalidArgument): "JSON schema keyword 'KEY' WHY".
[[noreturn]] void Refuse(const std::string& keyword, const std::string& why);
// Keywords that describe without constraining (ignored).
const std::set<std::string>& Annotations();
// Each constraining keyword that belongs to one instance type, and its type.
const std::map<std::string, std::string>& KeywordTypes();
// The seven JSON types.
const std::vector<std::string>& AllTypes();
bool IsObject(const Poco::Dynamic::Var& v);
bool IsArray(const Poco::Dynamic::Var& v);
// Whether `v` is an instance of JSON type `type`.
bool OfType(const Poco::Dynamic::Var& v, const std::string& type);
// A count keyword's value (minItems, maxLength, ...): 0 to 10000.
int64_t CountField(const Poco::JSON::Object::Ptr& schema, const std::string& key);

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_JSON_SCHEMA_KEYWORDS_H_
