// What the executor did: per opcode, how many dispatches and how many weight
// bytes they read; per phase, how many batches and tokens. Read by tests (e.g.
// "prefill ran each matmul once, not once per token") and printed by tools.
#ifndef ORCD_HOST_ENGINE_DISPATCH_COUNTERS_H_
#define ORCD_HOST_ENGINE_DISPATCH_COUNTERS_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "host/engine/plan.h"

namespace orcd::engine {

struct OpCounter {
  uint64_t dispatches = 0;
  uint64_t weight_bytes = 0;
};

struct PhaseCounter {
  uint64_t runs = 0;    // plan executions (one per batch)
  uint64_t tokens = 0;  // tokens evaluated
};

struct DispatchCounters {
  std::map<Opcode, OpCounter> ops;
  std::array<PhaseCounter, kPhaseCount> phases{};

  const OpCounter& op(Opcode opcode) const;
  const PhaseCounter& phase(Phase p) const { return phases[static_cast<int>(p)]; }
  uint64_t total_dispatches() const;
  uint64_t total_weight_bytes() const;
  // Zeroes every counter in place (entries stay, so pointers to them stay valid).
  void Reset();
  // {"prefill":{"runs":..,"tokens":..},"decode":{..},"ops":{"MATMUL":{"dispatches":..,"weight_bytes":..},..}}
  std::string ToJson() const;
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_DISPATCH_COUNTERS_H_
