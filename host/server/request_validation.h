// Shared by the request parsers (/execute, /v1/*): the exception that carries
// a ValidationError out of nested checks, typed field readers that refuse
// other JSON types (true is not a number) and out-of-range integers, and the
// worker-drawn seed.
#ifndef ORCD_HOST_SERVER_REQUEST_VALIDATION_H_
#define ORCD_HOST_SERVER_REQUEST_VALIDATION_H_

#include <Poco/Dynamic/Var.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Object.h>

#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "host/server/execute_request.h"

namespace orcd {

namespace structured {
class Grammar;
}

struct InvalidRequest {
  ValidationError error;
};

// Throws InvalidRequest whose message starts with the field's name.
[[noreturn]] inline void FailField(const std::string& field, const std::string& message) {
  throw InvalidRequest{{field, field.empty() ? message : field + " " + message}};
}

// Integer literals beyond int64/uint64 rewritten as decimals ("...0.0"), so
// that the JSON parser keeps them as doubles (it wraps them silently: 2^64
// would read as 0) and the integer checks below refuse them.
std::string WidenOutOfRangeIntegers(const std::string& json);

// The body as a JSON object; throws InvalidRequest (field "") otherwise.
// Objects keep their members' order (a JSON schema's properties order is
// the order of the structured output's properties).
Poco::JSON::Object::Ptr ParseJsonObject(const std::string& body);

// Typed readers: throw InvalidRequest naming `field` on a wrong type or range.
double NumberField(const Poco::Dynamic::Var& v, const std::string& field, double lo, double hi,
                   bool lo_open = false);
int64_t IntegerField(const Poco::Dynamic::Var& v, const std::string& field, int64_t lo, int64_t hi);
uint64_t SeedField(const Poco::Dynamic::Var& v, const std::string& field);  // 0 .. 2^64-1
std::string StringField(const Poco::Dynamic::Var& v, const std::string& field);
bool BoolField(const Poco::Dynamic::Var& v, const std::string& field);
// A JSON schema compiled for structured output; throws InvalidRequest naming
// `field` and the keyword it cannot honour.
std::shared_ptr<const structured::Grammar> SchemaGrammar(const Poco::Dynamic::Var& schema,
                                                         const std::string& field);

// Runs a parser that refuses through FailField: its request, or the error
// (a JSON type the parser's checks did not foresee becomes one too).
template <class Request, class Parse>
std::variant<Request, ValidationError> Validated(Parse&& parse) {
  try {
    return parse();
  } catch (const InvalidRequest& e) {
    return e.error;
  } catch (const Poco::Exception& e) {
    return ValidationError{"", "invalid request: " + e.displayText().substr(0, 200)};
  }
}

// A seed for requests that give none (reported back so a run can be repeated).
uint64_t DrawSeed();

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_REQUEST_VALIDATION_H_
