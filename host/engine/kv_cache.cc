#include "host/engine/kv_cache.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "host/common/status.h"

namespace orcd::engine {

std::string_view KvTypeName(KvType type) {
  switch (type) {
    case KvType::kF16:
      return "f16";
    case KvType::kF32:
      return "f32";
    case KvType::kQ8_0:
      return "q8_0";
  }
  return "?";
}

std::optional<KvType> ParseKvType(std::string_view name) {
  for (const KvType t : {KvType::kF16, KvType::kF32, KvType::kQ8_0}) {
    if (KvTypeName(t) == name) return t;
  }
  return std::nullopt;
}

uint64_t KvBytes(KvType type, uint64_t elements) {
  switch (type) {
    case KvType::kF16:
      return elements * 2;
    case KvType::kF32:
      return elements * 4;
    case KvType::kQ8_0:
      return elements / kKvQ8Block * kKvQ8BlockBytes;
  }
  return 0;
}

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
  void Copy(void* dst, const void* src, uint64_t bytes) override { std::memcpy(dst, src, bytes); }
};

HostKvMemory g_host_kv_memory;

}  // namespace

namespace {

// Positions a layer keeps per sequence: its window, or the whole context.
int64_t Capacity(const KvStateDesc& d, int64_t context_length) {
  return d.sliding_window > 0 && d.sliding_window < context_length
             ? static_cast<int64_t>(d.sliding_window)
             : context_length;
}

int64_t RoundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

uint64_t PositionBytes(const KvStateDesc& d, KvType type) {
  return 2ull * d.n_kv_heads * KvBytes(type, static_cast<uint64_t>(d.head_dim));
}

}  // namespace

uint64_t KvCache::BytesFor(const std::vector<KvStateDesc>& states, int64_t context_length,
                           KvType type) {
  uint64_t total = 0;
  for (const KvStateDesc& d : states) {
    total += PositionBytes(d, type) * static_cast<uint64_t>(Capacity(d, context_length));
  }
  return total;
}

uint64_t KvCache::BlockBytes(const std::vector<KvStateDesc>& states, int64_t block_tokens,
                             KvType type) {
  uint64_t total = 0;
  for (const KvStateDesc& d : states) {
    if (d.sliding_window == 0)
      total += PositionBytes(d, type) * static_cast<uint64_t>(block_tokens);
  }
  return total;
}

uint64_t KvCache::RingBytes(const std::vector<KvStateDesc>& states, int64_t context_length,
                            int64_t block_tokens, KvType type, int64_t margin_blocks) {
  uint64_t total = 0;
  for (const KvStateDesc& d : states) {
    if (d.sliding_window == 0) continue;
    total += PositionBytes(d, type) *
             static_cast<uint64_t>(RoundUp(Capacity(d, context_length), block_tokens) +
                                   margin_blocks * block_tokens);
  }
  return total;
}

void KvCache::CopyBlockRows(int32_t from, int32_t to, int64_t rows) {
  if (from < 0 || to < 0 || from >= layout_.blocks || to >= layout_.blocks || rows < 0 ||
      rows > layout_.block_tokens)
    throw Error(ErrorCode::kInternal, "KV cache: no such block rows");
  if (from == to || rows == 0) return;
  for (const Layer& layer : layers_) {
    if (layer.ring) continue;
    const int64_t heads = layer.desc.n_kv_heads, dim = layer.desc.head_dim;
    const size_t bytes = RowBytes(dim) * static_cast<size_t>(rows);
    for (int64_t g = 0; g < heads; ++g) {
      // Head g's first row in a block: position 0 of a one-block table.
      const auto at = [&](int32_t block) {
        return ByteOffset(layer.RowIndex(KvSequenceView{&block, 1, 0}, 0, g));
      };
      for (void* side : {layer.k, layer.v}) {
        auto* base = static_cast<uint8_t*>(side);
        memory_->Copy(base + at(to), base + at(from), bytes);
      }
    }
  }
}

int64_t KvCache::RingReach() const {
  int64_t reach = context_length_;
  for (const Layer& layer : layers_) {
    if (layer.ring)
      reach = std::min(reach, layer.capacity - Capacity(layer.desc, context_length_) + 1);
  }
  return reach;
}

void KvCache::CopyRing(int64_t from, int64_t to) {
  if (from < 0 || to < 0 || from >= layout_.ring_slots || to >= layout_.ring_slots)
    throw Error(ErrorCode::kInternal, "KV cache: no such ring slot");
  if (from == to) return;
  for (const Layer& layer : layers_) {
    if (!layer.ring) continue;
    const uint64_t bytes = static_cast<uint64_t>(layer.capacity) * layer.desc.n_kv_heads *
                           KvBytes(type_, static_cast<uint64_t>(layer.desc.head_dim));
    for (void* side : {layer.k, layer.v}) {
      auto* base = static_cast<uint8_t*>(side);
      memory_->Copy(base + static_cast<uint64_t>(to) * bytes,
                    base + static_cast<uint64_t>(from) * bytes, bytes);
    }
  }
}

KvCache::KvCache(const std::vector<KvStateDesc>& states, int64_t context_length, KvType type,
                 KvMemory* memory, KvLayout layout)
    : memory_(memory ? memory : &g_host_kv_memory),
      type_(type),
      context_length_(context_length),
      layout_(layout) {
  if (context_length <= 0)
    throw Error(ErrorCode::kInvalidArgument, "context length must be positive");
  const bool paged = layout.block_tokens > 0;
  if (paged && (layout.blocks <= 0 || layout.ring_slots <= 0))
    throw Error(ErrorCode::kInvalidArgument, "a paged KV cache needs blocks and ring slots");
  for (const KvStateDesc& d : states) {
    if (type == KvType::kQ8_0 && d.head_dim % kKvQ8Block != 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  "kv_type q8_0 needs head dimensions that are multiples of 32; this model's "
                  "layer " +
                      std::to_string(d.layer) + " has " + std::to_string(d.head_dim) +
                      " (use f16)");
    }
    Layer layer;
    layer.desc = d;
    const int64_t held = Capacity(d, context_length);
    // A window as wide as the context is a full layer in the contiguous
    // layout, but still a ring of whole blocks when paged (the pool holds
    // only layers without a window).
    layer.ring = paged ? d.sliding_window > 0 : held < context_length;
    uint64_t positions = 0;  // per K (or V) buffer
    if (!paged) {
      layer.capacity = held;
      layer.block_tokens = held;
      positions = static_cast<uint64_t>(held);
    } else if (layer.ring) {
      layer.capacity =
          RoundUp(held, layout.block_tokens) + layout.ring_margin_blocks * layout.block_tokens;
      layer.block_tokens = layout.block_tokens;
      positions = static_cast<uint64_t>(layer.capacity * layout.ring_slots);
    } else {
      layer.capacity = context_length;
      layer.block_tokens = layout.block_tokens;
      positions = static_cast<uint64_t>(layout.blocks * layout.block_tokens);
    }
    const uint64_t bytes =
        positions * d.n_kv_heads * KvBytes(type, static_cast<uint64_t>(d.head_dim));
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
