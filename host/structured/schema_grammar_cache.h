// JsonSchemaGrammar with the last compiled grammars kept, keyed by the
// schema's compact text: requests with the same schema share one Grammar
// object, and with it their MaskCache (mask_cache.h).
#ifndef ORCD_HOST_STRUCTURED_SCHEMA_GRAMMAR_CACHE_H_
#define ORCD_HOST_STRUCTURED_SCHEMA_GRAMMAR_CACHE_H_

#include <memory>

#include <Poco/Dynamic/Var.h>

#include "host/structured/grammar.h"

namespace orcd::structured {

// Process-wide, thread-safe; the 64 most recently used schemas. Throws as
// JsonSchemaGrammar does (refused schemas are not kept).
std::shared_ptr<const Grammar> CachedJsonSchemaGrammar(const Poco::Dynamic::Var& schema);

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_SCHEMA_GRAMMAR_CACHE_H_
