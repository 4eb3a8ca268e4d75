#include "host/engine/kv_block_pool.h"

#include <algorithm>

#include "host/common/status.h"

namespace orcd::engine {
namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  // splitmix64's finalizer over the running value: cheap, well spread.
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace

KvBlockPool::KvBlockPool(int64_t blocks, int64_t block_tokens)
    : block_tokens_(block_tokens), blocks_(static_cast<size_t>(std::max<int64_t>(blocks, 0))) {
  // Handed out in order 0, 1, 2, ...: the back of the list first.
  for (int64_t b = blocks - 1; b >= 0; --b) free_.push_back(static_cast<int32_t>(b));
}

uint64_t KvBlockPool::Key(int32_t parent, std::span<const int32_t> tokens, uint64_t salt) const {
  uint64_t h = Mix(salt, static_cast<uint64_t>(static_cast<int64_t>(parent)));
  if (parent >= 0) h = Mix(h, blocks_[static_cast<size_t>(parent)].generation);
  for (const int32_t t : tokens) h = Mix(h, static_cast<uint32_t>(t));
  return h;
}

void KvBlockPool::Uncache(int32_t block) {
  Block& b = blocks_[static_cast<size_t>(block)];
  const auto it = by_key_.find(b.key);
  if (it != by_key_.end() && it->second == block) by_key_.erase(it);
  b.cached = false;
  b.tokens.clear();
  --cached_;
}

int32_t KvBlockPool::Take() {
  int32_t block = -1;
  if (!free_.empty()) {
    block = free_.back();
    free_.pop_back();
  } else if (!lru_.empty()) {
    block = lru_.front();
    lru_.pop_front();
    Uncache(block);
    ++evictions_;
  } else {
    return -1;
  }
  Block& b = blocks_[static_cast<size_t>(block)];
  ++b.generation;  // new content: a child keyed by the old one is never found again
  b.refs = 1;
  return block;
}

void KvBlockPool::Release(int32_t block) {
  Block& b = blocks_.at(static_cast<size_t>(block));
  if (b.refs <= 0) throw Error(ErrorCode::kInternal, "a KV block released twice");
  if (--b.refs > 0) return;
  if (b.cached) {
    b.lru = lru_.insert(lru_.end(), block);
  } else {
    free_.push_back(block);
  }
}

int32_t KvBlockPool::Acquire(int32_t parent, std::span<const int32_t> tokens, uint64_t salt) {
  if (static_cast<int64_t>(tokens.size()) != block_tokens_) return -1;
  const auto it = by_key_.find(Key(parent, tokens, salt));
  if (it == by_key_.end()) return -1;
  Block& b = blocks_[static_cast<size_t>(it->second)];
  const uint64_t parent_generation =
      parent >= 0 ? blocks_[static_cast<size_t>(parent)].generation : 0;
  if (!b.cached || b.parent != parent || b.parent_generation != parent_generation ||
      b.salt != salt || !std::equal(tokens.begin(), tokens.end(), b.tokens.begin())) {
    return -1;  // a hash collision
  }
  if (b.refs++ == 0) lru_.erase(b.lru);
  return it->second;
}

bool KvBlockPool::Register(int32_t block, int32_t parent, std::span<const int32_t> tokens,
                           uint64_t salt) {
  Block& b = blocks_.at(static_cast<size_t>(block));
  if (b.cached) return true;
  if (b.refs <= 0 || static_cast<int64_t>(tokens.size()) != block_tokens_) return false;
  const uint64_t key = Key(parent, tokens, salt);
  if (by_key_.contains(key)) return false;  // computed twice at once: the first stays
  b.cached = true;
  b.key = key;
  b.parent = parent;
  b.parent_generation = parent >= 0 ? blocks_[static_cast<size_t>(parent)].generation : 0;
  b.salt = salt;
  b.tokens.assign(tokens.begin(), tokens.end());
  by_key_.emplace(key, block);
  ++cached_;
  return true;
}

}  // namespace orcd::engine
