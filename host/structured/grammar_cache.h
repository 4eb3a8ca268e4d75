// Compiled grammars kept across requests, keyed by what they were compiled
// from: requests with the same schema (or the same forced tools) share one
// Grammar object, and with it the masks its jobs computed (mask_cache.h).
#ifndef ORCD_HOST_STRUCTURED_GRAMMAR_CACHE_H_
#define ORCD_HOST_STRUCTURED_GRAMMAR_CACHE_H_

#include <functional>
#include <memory>
#include <string>

#include <Poco/Dynamic/Var.h>

#include "host/structured/grammar.h"

namespace orcd::structured {

// The grammar kept under `key`, or compile()'s (then kept). Process-wide,
// thread-safe, the 64 most recently used keys; what compile() throws is
// thrown and nothing is kept. The key must say everything the grammar
// depends on.
std::shared_ptr<const Grammar> CachedGrammar(
    const std::string& key, const std::function<std::shared_ptr<const Grammar>()>& compile);

// JsonSchemaGrammar through CachedGrammar, keyed by the schema's compact text.
std::shared_ptr<const Grammar> CachedJsonSchemaGrammar(const Poco::Dynamic::Var& schema);

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_GRAMMAR_CACHE_H_
