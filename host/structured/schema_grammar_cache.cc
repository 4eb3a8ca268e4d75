#include "host/structured/schema_grammar_cache.h"

#include <algorithm>
#include <list>
#include <mutex>
#include <string>
#include <utility>

#include "host/structured/compact_json.h"
#include "host/structured/json_schema_grammar.h"

namespace orcd::structured {
namespace {

constexpr size_t kMaxSchemas = 64;

struct SchemaCache {
  std::mutex mu;
  std::list<std::pair<std::string, std::shared_ptr<const Grammar>>> entries;  // MRU first
};

SchemaCache& Cache() {
  static SchemaCache cache;
  return cache;
}

}  // namespace

std::shared_ptr<const Grammar> CachedJsonSchemaGrammar(const Poco::Dynamic::Var& schema) {
  const std::string key = CompactJson(schema);
  SchemaCache& cache = Cache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    const auto it = std::find_if(cache.entries.begin(), cache.entries.end(),
                                 [&](const auto& e) { return e.first == key; });
    if (it != cache.entries.end()) {
      cache.entries.splice(cache.entries.begin(), cache.entries, it);
      return cache.entries.front().second;
    }
  }
  // Compiled outside the lock (another request may compile the same schema
  // at once: the first one in is kept).
  std::shared_ptr<const Grammar> grammar = JsonSchemaGrammar(schema);
  std::lock_guard<std::mutex> lock(cache.mu);
  const auto it = std::find_if(cache.entries.begin(), cache.entries.end(),
                               [&](const auto& e) { return e.first == key; });
  if (it != cache.entries.end()) return it->second;
  cache.entries.emplace_front(key, grammar);
  if (cache.entries.size() > kMaxSchemas) cache.entries.pop_back();
  return grammar;
}

}  // namespace orcd::structured
