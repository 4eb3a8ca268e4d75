// Shape rules of the host's macro-ops (orcd/ops.h): given an instruction's
// input widths, resolved weights and parameter block, the widths of its
// outputs, or a typed PlanError saying what does not agree. Backend-neutral:
// every backend's adapters rely on these checks having passed.
#ifndef ORCD_HOST_ENGINE_OP_SHAPES_H_
#define ORCD_HOST_ENGINE_OP_SHAPES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "host/engine/plan.h"
#include "host/engine/weight_table.h"

namespace orcd::engine {

struct ShapeQuery {
  const PlanInstruction* insn = nullptr;
  std::string label;  // DescribeInstruction(...)
  std::vector<int64_t> in_widths;
  std::vector<const WeightRef*> weights;  // resolved, same order as insn->weights
  const std::vector<KvStateDesc>* kv_states = nullptr;
  std::vector<int64_t> out_widths;  // filled by InferShapes
};

// True when the host knows the opcode's shape rule (then out_widths is filled
// or a PlanError is thrown); false for opcodes it has no rule for.
bool InferShapes(ShapeQuery& q);

// Largest rotated dimension count ROPE accepts (its per-token cos/sin table
// lives on the stack).
constexpr uint32_t kMaxRopeDims = 1024;

// Most experts MOE picks per token (its routing arrays live on the stack).
constexpr uint32_t kMaxMoeExpertsUsed = 64;

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_OP_SHAPES_H_
