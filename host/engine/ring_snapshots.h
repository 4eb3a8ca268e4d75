// Prefix caching for plans with sliding-window layers. A cached block holds
// the full-context layers' KV of its positions, but a sliding-window layer
// keeps each sequence's window in a ring of its own (kv_cache.h), which no
// block carries: a sequence that maps cached blocks up to position b also
// needs every window as it stood at b. After a step that made prompt blocks
// full, the engine copies the sequence's rings (they hold a block beyond the
// window, so the window before the last full block's end is still whole) into
// a spare ring slot recorded here against that block; MatchPrefix maps a
// chain only up to its deepest block with such a copy, and copies it into
// the new sequence's rings. Spare slots are reused least recently used first;
// a copy whose block was evicted since (its generation moved on) is never
// used again.
#ifndef ORCD_HOST_ENGINE_RING_SNAPSHOTS_H_
#define ORCD_HOST_ENGINE_RING_SNAPSHOTS_H_

#include <cstdint>
#include <vector>

namespace orcd::engine {

class RingSnapshots {
 public:
  // Ring slots [first_slot, first_slot + slots) of the KV cache are spare.
  RingSnapshots(int64_t first_slot, int64_t slots);

  // The ring slot holding the windows at the end of `block` as of its
  // `generation`, or -1; a slot found is used most recently.
  int64_t Find(int32_t block, uint64_t generation);
  // The ring slot to copy the windows at the end of `block` into (now
  // recorded as holding them), or -1 when one holds them already.
  int64_t Claim(int32_t block, uint64_t generation);

 private:
  struct Entry {
    int32_t block = -1;
    uint64_t generation = 0;
    uint64_t used = 0;  // clock_ when last found or claimed; 0: never
  };
  int64_t first_slot_;
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_RING_SNAPSHOTS_H_
