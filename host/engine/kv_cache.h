// The KV cache of one slot: for every KV state descriptor of the plan, K and V
// of n_kv_heads heads, allocated once. A full-context layer holds
// `context_length` positions; a sliding-window layer holds only its window
// (min(window, context_length)) as a ring: position p lives in slot
// p % capacity, since no query ever looks further back than the window.
// Layout per layer and head: [slot][head_dim] (one head's keys are
// contiguous, which is what attention streams over).
#ifndef ORCD_HOST_ENGINE_KV_CACHE_H_
#define ORCD_HOST_ENGINE_KV_CACHE_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "host/engine/plan.h"

namespace orcd::engine {

enum class KvType { kF16, kF32 };
std::string_view KvTypeName(KvType type);

// Where a KV cache's buffers come from: host memory by default, device
// memory on the CUDA backend. Allocate throws (kOutOfMemory) or returns zeroed memory.
class KvMemory {
 public:
  virtual ~KvMemory() = default;
  virtual void* Allocate(uint64_t bytes) = 0;
  virtual void Free(void* p) = 0;
};

class KvCache {
 public:
  // `memory` (null: host memory) must outlive the cache.
  KvCache(const std::vector<KvStateDesc>& states, int64_t context_length, KvType type,
          KvMemory* memory = nullptr);
  ~KvCache();
  KvCache(const KvCache&) = delete;
  KvCache& operator=(const KvCache&) = delete;

  struct Layer {
    KvStateDesc desc;
    int64_t capacity = 0;  // positions held: context_length, or the window
    uint64_t bytes = 0;    // K and V together
    void* k = nullptr;     // [n_kv_heads][capacity][head_dim] of type()
    void* v = nullptr;

    int64_t Slot(int64_t position) const { return position % capacity; }
  };

  // Bytes a cache of these states would hold (K and V), without allocating.
  static uint64_t BytesFor(const std::vector<KvStateDesc>& states, int64_t context_length,
                           KvType type);

  KvType type() const { return type_; }
  int64_t context_length() const { return context_length_; }
  uint64_t bytes() const { return bytes_; }
  // Index of the state for plan layer `layer`, or -1.
  int Find(uint32_t layer) const;
  const Layer& layer(int index) const { return layers_[static_cast<size_t>(index)]; }
  size_t layer_count() const { return layers_.size(); }
  size_t element_size() const { return type_ == KvType::kF16 ? 2 : 4; }

 private:
  KvMemory* memory_;
  KvType type_;
  int64_t context_length_;
  uint64_t bytes_ = 0;
  std::vector<Layer> layers_;
  std::vector<void*> buffers_;
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_KV_CACHE_H_
