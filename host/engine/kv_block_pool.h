// The KV pool's blocks: which are free, how many sequences hold each, and,
// for prefix caching, which full blocks hold known content so that a new
// sequence starting with the same tokens maps them instead of recomputing.
//
// A cached block is content-addressed by (its parent block, the parent's
// generation, a salt, its tokens): the chain from the sequence start makes a
// block's key stand for the whole prefix up to it, as vLLM's hash chain does,
// and a lookup compares all of these, so a hash collision never maps wrong
// content. A block's generation grows each time it is taken for new content,
// so the children of an evicted block can never be found again (they stay
// until evicted themselves). Cached blocks no sequence holds are evicted least
// recently used first, and only when no free block is left.
#ifndef ORCD_HOST_ENGINE_KV_BLOCK_POOL_H_
#define ORCD_HOST_ENGINE_KV_BLOCK_POOL_H_

#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>
#include <vector>

namespace orcd::engine {

class KvBlockPool {
 public:
  KvBlockPool(int64_t blocks, int64_t block_tokens);

  int64_t block_tokens() const { return block_tokens_; }
  // Blocks a sequence can take now: free ones and cached ones nobody holds.
  int64_t available() const { return static_cast<int64_t>(free_.size() + lru_.size()); }
  // Blocks holding registered content, held or not.
  int64_t cached() const { return cached_; }
  uint64_t evictions() const { return evictions_; }

  // A block for new content (a free one, else the least recently used
  // cached one nobody holds), held once; -1 when there is none.
  int32_t Take();
  // A sequence lets go of `block`: once nobody holds it, a cached block
  // waits to be matched or evicted, any other is free.
  void Release(int32_t block);
  // The cached block holding `tokens` (block_tokens of them) right after
  // `parent` (-1: at the sequence start) under `salt`, held once more; -1
  // when there is none.
  int32_t Acquire(int32_t parent, std::span<const int32_t> tokens, uint64_t salt);
  // `block` (held, full) holds `tokens` after `parent` under `salt`, each
  // evaluated as a prompt token: later sequences may Acquire it. No-op when
  // an equal block is cached already. Whether `block` is now the cached one.
  bool Register(int32_t block, int32_t parent, std::span<const int32_t> tokens, uint64_t salt);
  // The cached block right after `parent` under `salt` whose tokens begin
  // with the longest run of `tokens` (at most block_tokens), held once
  // more, with that run's length in *matched; -1 when none begins with
  // tokens[0]. Its leading rows serve a sequence that diverges inside it
  // (copied into a block of its own: Engine::MatchPrefix).
  int32_t AcquireLongestChild(int32_t parent, std::span<const int32_t> tokens, uint64_t salt,
                              int64_t* matched);
  // Grows each time `block` is taken for new content.
  uint64_t generation(int32_t block) const {
    return blocks_.at(static_cast<size_t>(block)).generation;
  }

 private:
  struct Block {
    int refs = 0;
    uint64_t generation = 0;
    bool cached = false;
    uint64_t key = 0;
    uint64_t parent_key = 0;  // ParentKey of its parent: its entry in children_
    int32_t parent = -1;
    uint64_t parent_generation = 0;
    uint64_t salt = 0;
    std::vector<int32_t> tokens;
    std::list<int32_t>::iterator lru;  // valid while cached and not held
  };
  // (parent, the parent's generation, salt): the part of Key shared by
  // every child of one parent.
  uint64_t ParentKey(int32_t parent, uint64_t salt) const;
  uint64_t Key(int32_t parent, std::span<const int32_t> tokens, uint64_t salt) const;
  // Whether cached block `b` follows `parent` (at its current generation)
  // under `salt`.
  bool Follows(const Block& b, int32_t parent, uint64_t salt) const;
  void Uncache(int32_t block);

  int64_t block_tokens_;
  std::vector<Block> blocks_;
  std::vector<int32_t> free_;  // taken from the back
  std::list<int32_t> lru_;     // cached, nobody holds them; front: least recently used
  std::unordered_map<uint64_t, int32_t> by_key_;
  std::unordered_multimap<uint64_t, int32_t> children_;  // by ParentKey
  int64_t cached_ = 0;
  uint64_t evictions_ = 0;
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_KV_BLOCK_POOL_H_
