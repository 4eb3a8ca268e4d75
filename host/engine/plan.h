// The host's typed ExecutionPlan, as an architecture plugin emitted it through
// the plan builder: per phase, a list of instructions (opcode, registers,
// weight names, a copied parameter block) and the logits register; plus the
// KV state descriptors. Nothing here is resolved yet: see plan_validator.h.
#ifndef ORCD_HOST_ENGINE_PLAN_H_
#define ORCD_HOST_ENGINE_PLAN_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "orcd/ops.h"
#include "orcd/plugin.h"

namespace orcd::engine {

using Opcode = uint32_t;

enum class Phase : int { kPrefill = ORCD_PHASE_PREFILL, kDecode = ORCD_PHASE_DECODE };
constexpr int kPhaseCount = 2;
std::string_view PhaseName(Phase phase);

struct PlanInstruction {
  Opcode opcode = 0;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<std::string> weights;
  std::vector<uint8_t> params;  // the plugin's block, copied

  // The parameter block as P: fields the plugin did not send stay zero.
  template <class P>
  P ParamsAs() const {
    P p{};
    std::memcpy(&p, params.data(), params.size() < sizeof p ? params.size() : sizeof p);
    return p;
  }
};

struct PhasePlan {
  std::vector<PlanInstruction> instructions;
  int32_t logits_register = -1;
};

struct KvStateDesc {
  uint32_t layer = 0;
  uint32_t n_kv_heads = 0;
  uint32_t head_dim = 0;
  uint32_t sliding_window = 0;  // 0 = full context
};

struct ExecutionPlan {
  std::array<PhasePlan, kPhaseCount> phases;
  std::vector<KvStateDesc> kv_states;

  PhasePlan& phase(Phase p) { return phases[static_cast<int>(p)]; }
  const PhasePlan& phase(Phase p) const { return phases[static_cast<int>(p)]; }
};

// "MATMUL", "ROPE", ... or "op#65537" for opcodes the host does not name.
std::string OpcodeName(Opcode opcode);

// "prefill instruction 12 (MATMUL blk.0.attn_q.weight)": for error messages.
std::string DescribeInstruction(Phase phase, size_t index, const PlanInstruction& insn);

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_PLAN_H_
