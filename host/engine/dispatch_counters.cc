#include "host/engine/dispatch_counters.h"

namespace orcd::engine {

const OpCounter& DispatchCounters::op(Opcode opcode) const {
  static const OpCounter kNone;
  auto it = ops.find(opcode);
  return it == ops.end() ? kNone : it->second;
}

void DispatchCounters::Reset() {
  for (auto& [opcode, c] : ops) c = OpCounter{};
  phases = {};
}

uint64_t DispatchCounters::total_dispatches() const {
  uint64_t n = 0;
  for (const auto& [opcode, c] : ops) n += c.dispatches;
  return n;
}

uint64_t DispatchCounters::total_weight_bytes() const {
  uint64_t n = 0;
  for (const auto& [opcode, c] : ops) n += c.weight_bytes;
  return n;
}

std::string DispatchCounters::ToJson() const {
  std::string out = "{";
  for (int p = 0; p < kPhaseCount; ++p) {
    out += "\"" + std::string(PhaseName(static_cast<Phase>(p))) +
           "\":{\"runs\":" + std::to_string(phases[p].runs) +
           ",\"tokens\":" + std::to_string(phases[p].tokens) + "},";
  }
  out += "\"ops\":{";
  bool first = true;
  for (const auto& [opcode, c] : ops) {
    out += (first ? "\"" : ",\"") + OpcodeName(opcode) +
           "\":{\"dispatches\":" + std::to_string(c.dispatches) +
           ",\"weight_bytes\":" + std::to_string(c.weight_bytes) + "}";
    first = false;
  }
  return out + "}}";
}

}  // namespace orcd::engine
