// Schemas and instances written as JSON text in the structured-output tests,
// read as the host reads a request: objects keep their members' order (the
// order constrained output takes).
#ifndef ORCD_TESTS_STRUCTURED_SCHEMA_TEXT_H_
#define ORCD_TESTS_STRUCTURED_SCHEMA_TEXT_H_

#include <memory>
#include <string>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include "host/structured/json_schema_grammar.h"

namespace orcd::structured {

inline Poco::Dynamic::Var ParseOrdered(const std::string& text) {
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
  return parser.parse(text);
}

// `text` as a request's member holds it (so `true` and `false` are schemas too).
inline Poco::Dynamic::Var SchemaOf(const std::string& text) {
  return ParseOrdered("{\"s\":" + text + "}").extract<Poco::JSON::Object::Ptr>()->get("s");
}

inline std::shared_ptr<const Grammar> CompileSchema(const std::string& text) {
  return JsonSchemaGrammar(SchemaOf(text));
}

}  // namespace orcd::structured

#endif  // ORCD_TESTS_STRUCTURED_SCHEMA_TEXT_H_
