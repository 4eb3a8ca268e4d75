// JSON Schema -> the Grammar of the schema's instances written compactly
// (no whitespace; an object's properties in the schema's order, then any
// additional ones). The supported keywords are listed in README
// ("Structured output"); a schema using any other keyword that constrains
// is refused naming it, never run unconstrained. Annotations (title,
// description, default, examples, ...) are ignored.
#ifndef ORCD_HOST_STRUCTURED_JSON_SCHEMA_GRAMMAR_H_
#define ORCD_HOST_STRUCTURED_JSON_SCHEMA_GRAMMAR_H_

#include <memory>

#include <Poco/Dynamic/Var.h>

#include "host/structured/grammar.h"

namespace orcd::structured {

// Throws Error(kInvalidArgument) naming the keyword it cannot honour.
std::shared_ptr<const Grammar> JsonSchemaGrammar(const Poco::Dynamic::Var& schema);
// The same, as rules added to `builder` (for grammars that embed schemas,
// such as tool calls): the symbol of the schema's instances. `$ref`s resolve
// within `schema`.
GrammarBuilder::Symbol AddJsonSchema(GrammarBuilder& builder, const Poco::Dynamic::Var& schema);
// Any JSON object (OpenAI's response_format json_object).
std::shared_ptr<const Grammar> JsonObjectGrammar();

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_JSON_SCHEMA_GRAMMAR_H_
