#include "host/structured/grammar_cache.h"

#include <algorithm>
#include <list>
#include <mutex>
#include <utility>

#include "host/structured/compact_json.h"
#include "host/structured/json_schema_grammar.h"

namespace orcd::structured {
namespace {

constexpr size_t kMaxGrammars = 64;

struct Cache {
  std::mutex mu;
  std::list<std::pair<std::string, std::shared_ptr<const Grammar>>> entries;  // MRU first

  // The entry under key, moved to the front; null when there is none.
  std::shared_ptr<const Grammar> Find(const std::string& key) {
    const auto it =
        std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
    if (it == entries.end()) return nullptr;
    entries.splice(entries.begin(), entries, it);
    return entries.front().second;
  }
};

Cache& Grammars() {
  static Cache cache;
  return cache;
}

}  // namespace

std::shared_ptr<const Grammar> CachedGrammar(
    const std::string& key, const std::function<std::shared_ptr<const Grammar>()>& compile) {
  Cache& cache = Grammars();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    if (std::shared_ptr<const Grammar> known = cache.Find(key)) return known;
  }
  // Compiled outside the lock (another request may compile the same key at
  // once: the first one in is kept, so both share it from then on).
  std::shared_ptr<const Grammar> grammar = compile();
  std::lock_guard<std::mutex> lock(cache.mu);
  if (std::shared_ptr<const Grammar> known = cache.Find(key)) return known;
  cache.entries.emplace_front(key, grammar);
  if (cache.entries.size() > kMaxGrammars) cache.entries.pop_back();
  return grammar;
}

std::shared_ptr<const Grammar> CachedJsonSchemaGrammar(const Poco::Dynamic::Var& schema) {
  return CachedGrammar("json-schema " + CompactJson(schema),
                       [&] { return JsonSchemaGrammar(schema); });
}

}  // namespace orcd::structured
