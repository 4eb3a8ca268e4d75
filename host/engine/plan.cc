#include "host/engine/plan.h"

#include "host/engine/lowered_ops.h"

namespace orcd::engine {

std::string_view PhaseName(Phase phase) { return phase == Phase::kPrefill ? "prefill" : "decode"; }

std::string OpcodeName(Opcode opcode) {
  switch (opcode) {
    case ORCD_OP_EMBEDDING:
      return "EMBEDDING";
    case ORCD_OP_MATMUL:
      return "MATMUL";
    case ORCD_OP_ADD:
      return "ADD";
    case ORCD_OP_MUL:
      return "MUL";
    case ORCD_OP_RMS_NORM:
      return "RMS_NORM";
    case ORCD_OP_LAYER_NORM:
      return "LAYER_NORM";
    case ORCD_OP_ROPE:
      return "ROPE";
    case ORCD_OP_ATTENTION:
      return "ATTENTION";
    case ORCD_OP_SWIGLU:
      return "SWIGLU";
    case ORCD_OP_GEGLU:
      return "GEGLU";
    case ORCD_OP_GELU:
      return "GELU";
    case ORCD_OP_MOE:
      return "MOE";
    case ORCD_OP_LOGITS:
      return "LOGITS";
    case ORCD_OP_POSITION_EMBEDDING:
      return "POSITION_EMBEDDING";
    case kOpAddRmsNorm:
      return "ADD_RMS_NORM";
    case kOpRopeFused:
      return "ROPE_FUSED";
    case kOpMatmulSharedInput:
      return "MATMUL_SHARED_INPUT";
    case kOpSwigluQ8:
      return "SWIGLU_Q8";
    case kOpAttentionFused:
      return "ATTENTION_FUSED";
    case kOpMatmulGlu:
      return "MATMUL_GLU";
    case kOpMoeGlu:
      return "MOE_GLU";
    case kOpMatmulMulti:
      return "MATMUL_MULTI";
    default:
      return "op#" + std::to_string(opcode);
  }
}

std::string DescribeInstruction(Phase phase, size_t index, const PlanInstruction& insn) {
  std::string text = std::string(PhaseName(phase)) + " instruction " + std::to_string(index) +
                     " (" + OpcodeName(insn.opcode);
  if (!insn.weights.empty()) text += " " + insn.weights.front();
  return text + ")";
}

}  // namespace orcd::engine
