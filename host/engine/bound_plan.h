// A validated plan bound to this model and backend: every weight resolved,
// every register given its width and a place in the scratch arena, every
// instruction given its adapter. Built once at load (plan_validator.h) and
// then only read by the executor.
#ifndef ORCD_HOST_ENGINE_BOUND_PLAN_H_
#define ORCD_HOST_ENGINE_BOUND_PLAN_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "host/engine/adapter_table.h"
#include "host/engine/plan.h"
#include "host/engine/weight_table.h"

namespace orcd::engine {

// Where a register lives during execution.
struct RegisterSlot {
  enum class Kind { kArena, kTokens, kLogits };
  Kind kind = Kind::kArena;
  int64_t offset = 0;  // in floats from the arena's start (kArena)
  int64_t width = 0;   // floats per row
};

struct BoundInstruction {
  Opcode opcode = 0;
  AdapterFn run = nullptr;
  std::vector<RegisterSlot> in;
  std::vector<RegisterSlot> out;
  std::vector<const WeightRef*> weights;
  std::vector<uint8_t> params;  // the plugin's block (validated)
  int kv_index = -1;            // KvCache::Find(params.kv_layer) for ATTENTION
  uint64_t weight_bytes = 0;    // read per dispatch (EMBEDDING: per token)
  std::string label;            // for runtime error messages

  template <class P>
  P ParamsAs() const {
    P p{};  // an omitted optional block reads as zeros
    if (!params.empty())
      std::memcpy(&p, params.data(), params.size() < sizeof p ? params.size() : sizeof p);
    return p;
  }
};

struct BoundPhase {
  std::vector<BoundInstruction> instructions;
  int64_t arena_floats = 0;    // scratch the phase needs at its row capacity
  int64_t row_capacity = 0;    // most tokens one run may carry
  int64_t register_count = 0;  // logical registers (for reports)
  int64_t slot_count = 0;      // physical scratch buffers after liveness reuse
  int64_t vocab = 0;           // logits width
  // True when logits come from a LOGITS op, which computes only the rows asked for.
  bool logits_rows_selectable = false;
};

struct BoundPlan {
  std::array<BoundPhase, kPhaseCount> phases;
  BoundPhase& phase(Phase p) { return phases[static_cast<int>(p)]; }
  const BoundPhase& phase(Phase p) const { return phases[static_cast<int>(p)]; }
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_BOUND_PLAN_H_
