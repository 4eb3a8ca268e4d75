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

// Attention keeps one row of scores per query (up to the context length).
int64_t CpuWorkspaceFloats(int64_t context_length) { return context_length + 64; }

}  // namespace orcd::engine::cpu
