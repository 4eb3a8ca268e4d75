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

uint64_t KvBlockPool::ParentKey(int32_t parent, uint64_t salt) const {
  const uint64_t h = Mix(salt, static_cast<uint64_t>(static_cast<int64_t>(parent)));
  return parent >= 0 ? Mix(h, blocks_[static_cast<size_t>(parent)].generation) : h;
}

uint64_t KvBlockPool::Key(int32_t parent, std::span<const int32_t> tokens, uint64_t salt) const {
  uint64_t h = ParentKey(parent, salt);
  for (const int32_t t : tokens) h = Mix(h, static_cast<uint32_t>(t));
  return h;
}

bool KvBlockPool::Follows(const Block& b, int32_t parent, uint64_t salt) const {
  const uint64_t parent_generation =
      parent >= 0 ? blocks_[static_cast<size_t>(parent)].generation : 0;
  return b.cached && b.parent == parent && b.parent_generation == parent_generation &&
         b.salt == salt;
}

void KvBlockPool::Uncache(int32_t block) {
  Block& b = blocks_[static_cast<size_t>(block)];
  const auto it = by_key_.find(b.key);
  if (it != by_key_.end() && it->second == block) by_key_.erase(it);
  const auto [first, last] = children_.equal_range(b.parent_key);
  for (auto c = first; c != last; ++c) {
    if (c->second == block) {
      children_.erase(c);
      break;
    }
  }
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
  if (!Follows(b, parent, salt) || !std::equal(tokens.begin(), tokens.end(), b.tokens.begin())) {
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
  b.parent_key = ParentKey(parent, salt);
  children_.emplace(b.parent_key, block);
  ++cached_;
  return true;
}

int32_t KvBlockPool::AcquireLongestChild(int32_t parent, std::span<const int32_t> tokens,
                                         uint64_t salt, int64_t* matched) {
  *matched = 0;
  if (tokens.size() > static_cast<size_t>(block_tokens_))
    tokens = tokens.first(static_cast<size_t>(block_tokens_));
  int32_t best = -1;
  // The sequence start has as many children as distinct cached prompts: a
  // lookup reads a bounded number (a miss only costs a copy not made).
  constexpr int kMaxScanned = 4096;
  int scanned = 0;
  const auto [first, last] = children_.equal_range(ParentKey(parent, salt));
  for (auto c = first; c != last && scanned++ < kMaxScanned; ++c) {
    const Block& b = blocks_[static_cast<size_t>(c->second)];
    if (!Follows(b, parent, salt)) continue;  // another parent's key collided
    const auto run = std::mismatch(tokens.begin(), tokens.end(), b.tokens.begin()).first;
    const int64_t n = run - tokens.begin();
    if (n > *matched) {
      *matched = n;
      best = c->second;
    }
  }
  if (best >= 0) {
    Block& b = blocks_[static_cast<size_t>(best)];
    if (b.refs++ == 0) lru_.erase(b.lru);
  }
  return best;
}

}  // namespace orcd::engine
