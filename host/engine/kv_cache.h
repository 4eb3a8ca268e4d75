// The KV cache: for every KV state descriptor of the plan, K and V of
// n_kv_heads heads, allocated once and shared by the sequences the engine
// runs, in blocks of `block_tokens` positions laid out [block][head][slot in
// block][head_dim] (one head's keys of a block are contiguous, which is what
// attention streams over).
//
// A full-context layer's blocks form one pool: a sequence holds the blocks its
// block table names, so the pool bounds the sum of the sequences' lengths and
// `context_length` bounds one. A sliding-window layer keeps, per sequence
// slot, a ring of its window (rounded up to whole blocks): position p lives in
// ring slot p % capacity, since no query ever looks further back than the
// window, so it never holds more than its window whatever the length.
//
// The default layout (KvLayout{}) is one sequence with one block per layer
// that covers the whole context (or window): exactly the contiguous
// [head][position][head_dim] cache the CUDA kernels index.
#ifndef ORCD_HOST_ENGINE_KV_CACHE_H_
#define ORCD_HOST_ENGINE_KV_CACHE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "host/engine/plan.h"

namespace orcd::engine {

// q8_0: ggml's block_q8_0 (an f16 scale and 32 int8 values, 34 bytes per 32
// values: 53 % of f16), on the CPU backend, for head dims that are multiples
// of 32.
enum class KvType { kF16, kF32, kQ8_0 };
std::string_view KvTypeName(KvType type);
// "f16" | "f32" | "q8_0"; nullopt for anything else.
std::optional<KvType> ParseKvType(std::string_view name);
// Bytes of `elements` values of `type` (a multiple of 32 for q8_0).
uint64_t KvBytes(KvType type, uint64_t elements);
inline constexpr int64_t kKvQ8Block = 32;       // values per q8_0 block
inline constexpr int64_t kKvQ8BlockBytes = 34;  // its bytes

// Where a KV cache's buffers come from: host memory by default, device
// memory on the CUDA backend. Allocate throws (kOutOfMemory) or returns zeroed memory.
class KvMemory {
 public:
  virtual ~KvMemory() = default;
  virtual void* Allocate(uint64_t bytes) = 0;
  virtual void Free(void* p) = 0;
  // Copies within the memory Allocate gave (ordered after the work already
  // queued on it, before any queued later).
  virtual void Copy(void* dst, const void* src, uint64_t bytes) = 0;
};

// How the cache is cut: 0 everywhere = one sequence, contiguous.
struct KvLayout {
  int64_t block_tokens = 0;  // positions per block of a full-context layer
  int64_t blocks = 0;        // blocks in the full-context pool
  int64_t ring_slots = 0;    // sliding-window rings: one per sequence, and spare ones
  // Blocks each ring holds beyond its window (prefix caching keeps copies of
  // a window as it stood at a block boundary a step has already passed).
  int64_t ring_margin_blocks = 0;
};

// Where one sequence's positions live: its block table (full-context
// layers) and its ring slot (sliding-window layers).
struct KvSequenceView {
  const int32_t* blocks = nullptr;
  int64_t n_blocks = 0;
  int64_t ring_slot = 0;
};

class KvCache {
 public:
  // `memory` (null: host memory) must outlive the cache.
  KvCache(const std::vector<KvStateDesc>& states, int64_t context_length, KvType type,
          KvMemory* memory = nullptr, KvLayout layout = {});
  ~KvCache();
  KvCache(const KvCache&) = delete;
  KvCache& operator=(const KvCache&) = delete;

  struct Layer {
    KvStateDesc desc;
    bool ring = false;         // a sliding-window layer
    int64_t capacity = 0;      // positions one sequence holds: context_length, or its ring
    int64_t block_tokens = 0;  // positions per block
    uint64_t bytes = 0;        // K and V together, every block
    void* k = nullptr;         // [block][n_kv_heads][block_tokens][head_dim] of type()
    void* v = nullptr;

    int64_t Slot(int64_t position) const { return position % capacity; }
    // Block and offset in it of `position` for a sequence; the element index
    // of head g's row there is ((block * heads + g) * block_tokens + offset) * head_dim.
    int64_t RowIndex(const KvSequenceView& seq, int64_t position, int64_t g) const {
      int64_t block, offset;
      if (ring) {
        const int64_t slot = position % capacity;
        block = seq.ring_slot * (capacity / block_tokens) + slot / block_tokens;
        offset = slot % block_tokens;
      } else {
        block = seq.blocks[position / block_tokens];
        offset = position % block_tokens;
      }
      return ((block * desc.n_kv_heads + g) * block_tokens + offset) * desc.head_dim;
    }
    // Positions from `position` on that are contiguous in memory (the end of
    // its block, or of the ring).
    int64_t RunLength(int64_t position) const {
      const int64_t in_seq = ring ? position % capacity : position;
      return block_tokens - in_seq % block_tokens;
    }
  };

  // Bytes a contiguous one-sequence cache of these states would hold (K and
  // V), without allocating.
  static uint64_t BytesFor(const std::vector<KvStateDesc>& states, int64_t context_length,
                           KvType type);
  // Bytes of one full-context block over every layer (K and V), and of one
  // sequence's sliding-window rings, for a layout's block size.
  static uint64_t BlockBytes(const std::vector<KvStateDesc>& states, int64_t block_tokens,
                             KvType type);
  static uint64_t RingBytes(const std::vector<KvStateDesc>& states, int64_t context_length,
                            int64_t block_tokens, KvType type, int64_t margin_blocks = 0);

  KvType type() const { return type_; }
  int64_t context_length() const { return context_length_; }
  const KvLayout& layout() const { return layout_; }
  // Every sliding-window layer's ring `from` copied over ring `to` (ring
  // slots of the layout), in the memory's order of work.
  void CopyRing(int64_t from, int64_t to);
  // The first `rows` positions of pool block `from` copied into block `to`
  // (every layer without a window), in the memory's order of work.
  void CopyBlockRows(int32_t from, int32_t to, int64_t rows);
  // How many positions past a block boundary every ring still holds the whole
  // window before it (the positions a ring keeps beyond its window, plus one);
  // context_length when no layer has a ring.
  int64_t RingReach() const;
  uint64_t bytes() const { return bytes_; }
  // Index of the state for plan layer `layer`, or -1.
  int Find(uint32_t layer) const;
  const Layer& layer(int index) const { return layers_[static_cast<size_t>(index)]; }
  size_t layer_count() const { return layers_.size(); }
  // Bytes of one head's row of `head_dim` values, and the byte offset of
  // an element index (Layer::RowIndex's) in a layer's K or V buffer.
  size_t RowBytes(int64_t head_dim) const {
    return static_cast<size_t>(KvBytes(type_, static_cast<uint64_t>(head_dim)));
  }
  size_t ByteOffset(int64_t element) const {
    return static_cast<size_t>(KvBytes(type_, static_cast<uint64_t>(element)));
  }
  // The one sequence of the default layout.
  KvSequenceView contiguous_view() const { return {&zero_block_, 1, 0}; }

 private:
  KvMemory* memory_;
  KvType type_;
  int64_t context_length_;
  KvLayout layout_;
  uint64_t bytes_ = 0;
  std::vector<Layer> layers_;
  std::vector<void*> buffers_;
  int32_t zero_block_ = 0;
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_KV_CACHE_H_
