// Scratch reuse by register liveness: every arena register gets a column range
// of the phase's scratch arena, and a register whose last reader has run gives
// its range back for later registers. Ranges are assigned after an
// instruction's outputs and freed after its inputs, so an instruction never
// writes over an input it is still reading (unless it names the same register
// on both sides, i.e. runs in place).
#ifndef ORCD_HOST_ENGINE_REGISTER_ALLOCATOR_H_
#define ORCD_HOST_ENGINE_REGISTER_ALLOCATOR_H_

#include <cstdint>
#include <map>
#include <vector>

namespace orcd::engine {

struct RegisterUse {
  std::vector<int32_t> reads;
  std::vector<int32_t> writes;
};

struct RegisterAllocation {
  std::map<int32_t, int64_t> offset;  // register -> first column
  int64_t total_width = 0;            // columns of the arena
  int64_t slot_count = 0;             // distinct column ranges handed out
};

// `uses` in execution order, `widths` for every register in `uses`.
RegisterAllocation AllocateRegisters(const std::vector<RegisterUse>& uses,
                                     const std::map<int32_t, int64_t>& widths);

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_REGISTER_ALLOCATOR_H_
