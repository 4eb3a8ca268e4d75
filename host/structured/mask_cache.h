// Allowed-token bits of grammar states, shared by the jobs of one compiled
// grammar: an application that sends the same response_format (or tools)
// with every request meets the same states again, and a state's trie walk
// (up to tens of ms inside strings and patterns) is paid once per worker,
// not once per job. Masks depend on the vocabulary too: one MaskCaches per
// TokenTrie.
#ifndef ORCD_HOST_STRUCTURED_MASK_CACHE_H_
#define ORCD_HOST_STRUCTURED_MASK_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "host/structured/grammar.h"

namespace orcd::structured {

using MaskBits = std::vector<uint64_t>;

// One grammar's states (GrammarMatcher::Key) -> their bits. Thread-safe;
// holds at most `max_bytes` of bits (then keeps what it has: a full cache
// only stops learning).
class MaskCache {
 public:
  explicit MaskCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  std::shared_ptr<const MaskBits> Find(const std::vector<uint32_t>& key) const;
  void Insert(const std::vector<uint32_t>& key, std::shared_ptr<const MaskBits> bits);
  size_t states() const;

 private:
  mutable std::mutex mu_;
  std::map<std::vector<uint32_t>, std::shared_ptr<const MaskBits>> bits_;
  size_t bytes_ = 0;
  const size_t max_bytes_;
};

// The MaskCache of each recently used grammar (least recently used dropped
// past `max_grammars`). A grammar is known by its object: the server hands
// the same object to every request with the same schema (CachedJsonSchemaGrammar).
class MaskCaches {
 public:
  MaskCaches(size_t max_grammars, size_t max_bytes_per_grammar)
      : max_grammars_(max_grammars), max_bytes_per_grammar_(max_bytes_per_grammar) {}

  std::shared_ptr<MaskCache> For(const std::shared_ptr<const Grammar>& grammar);

 private:
  struct Entry {
    std::shared_ptr<const Grammar> grammar;  // kept alive: its address is the key
    std::shared_ptr<MaskCache> cache;
  };
  std::mutex mu_;
  std::list<Entry> entries_;  // most recently used first
  const size_t max_grammars_;
  const size_t max_bytes_per_grammar_;
};

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_MASK_CACHE_H_
