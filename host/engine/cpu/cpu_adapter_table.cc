#include <algorithm>

#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/cpu/weight_kernels.h"

namespace orcd::engine::cpu {

AdapterTable MakeCpuAdapterTable() {
  AdapterTable table(ORCD_BACKEND_CPU, "cpu", &CpuSupportsWeight);
  table.Register(ORCD_OP_EMBEDDING, &RunEmbedding);
  table.Register(ORCD_OP_MATMUL, &RunMatmul);
  table.Register(ORCD_OP_ADD, &RunAdd);
  table.Register(ORCD_OP_MUL, &RunMul);
  table.Register(ORCD_OP_RMS_NORM, &RunRmsNorm);
  table.Register(ORCD_OP_LAYER_NORM, &RunLayerNorm);
  table.Register(ORCD_OP_ROPE, &RunRope);
  table.Register(ORCD_OP_ATTENTION, &RunAttention);
  table.Register(ORCD_OP_SWIGLU, &RunSwiglu);
  table.Register(ORCD_OP_GEGLU, &RunSwiglu);
  table.Register(ORCD_OP_LOGITS, &RunLogits);
  table.Register(ORCD_OP_POSITION_EMBEDDING, &RunPositionEmbedding);
  table.Register(ORCD_OP_GELU, &RunGelu);
  table.Register(ORCD_OP_MOE, &RunMoe);
  return table;
}

// Attention keeps a row of scores (up to the context length) for each query
// head that shares the KV head it works on.
int64_t CpuWorkspaceFloats(const BoundPlan& plan, int64_t context_length) {
  int64_t group = 1;
  for (const BoundPhase& phase : plan.phases) {
    for (const BoundInstruction& insn : phase.instructions) {
      if (insn.opcode != ORCD_OP_ATTENTION) continue;
      const auto p = insn.ParamsAs<orcd_op_attention_params>();
      if (p.n_head_kv > 0) group = std::max<int64_t>(group, p.n_head / p.n_head_kv);
    }
  }
  return group * (context_length + 64);
}

}  // namespace orcd::engine::cpu
