#include "host/engine/kv_cache.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "host/common/status.h"

namespace orcd::engine {

std::string_view KvTypeName(KvType type) { return type == KvType::kF16 ? "f16" : "f32"; }

namespace {

// Zeroed so that a bug reading unwritten positions shows up as zeros, not as
// garbage (and pages are committed now, not mid-generation).
class HostKvMemory : public KvMemory {
 public:
  void* Allocate(uint64_t bytes) override {
    void* p = nullptr;
    if (posix_memalign(&p, 64, bytes == 0 ? 64 : bytes) != 0 || p == nullptr) {
      throw Error(ErrorCode::kOutOfMemory,
                  "KV cache: cannot allocate " + std::to_string(bytes) + " bytes of host memory");
    }
    std::memset(p, 0, bytes);
    return p;
  }
  void Free(void* p) override { std::free(p); }
};

HostKvMemory g_host_kv_memory;

}  // namespace

namespace {

int64_t Capacity(const KvStateDesc& d, int64_t context_length) {
  return d.sliding_window > 0 && d.sliding_window < context_length
             ? static_cast<int64_t>(d.sliding_window)
             : context_length;
}

}  // namespace

uint64_t KvCache::BytesFor(const std::vector<KvStateDesc>& states, int64_t context_length,
                           KvType type) {
  uint64_t total = 0;
  for (const KvStateDesc& d : states) {
    total += 2ull * d.n_kv_heads * d.head_dim * static_cast<uint64_t>(Capacity(d, context_length)) *
             (type == KvType::kF16 ? 2 : 4);
  }
  return total;
}

KvCache::KvCache(const std::vector<KvStateDesc>& states, int64_t context_length, KvType type,
                 KvMemory* memory)
    : memory_(memory ? memory : &g_host_kv_memory), type_(type), context_length_(context_length) {
  if (context_length <= 0)
    throw Error(ErrorCode::kInvalidArgument, "context length must be positive");
  for (const KvStateDesc& d : states) {
    Layer layer;
    layer.desc = d;
    layer.capacity = Capacity(d, context_length);
    const uint64_t bytes = static_cast<uint64_t>(d.n_kv_heads) * d.head_dim *
                           static_cast<uint64_t>(layer.capacity) * element_size();
    layer.bytes = 2 * bytes;
    for (void** side : {&layer.k, &layer.v}) {
      void* p = nullptr;
      try {
        p = memory_->Allocate(bytes);
      } catch (...) {
        for (void* b : buffers_) memory_->Free(b);  // nothing stays allocated
        throw;
      }
      buffers_.push_back(p);
      *side = p;
      bytes_ += bytes;
    }
    layers_.push_back(layer);
  }
}

KvCache::~KvCache() {
  for (void* b : buffers_) memory_->Free(b);
}

int KvCache::Find(uint32_t layer) const {
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (layers_[i].desc.layer == layer) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace orcd::engine
