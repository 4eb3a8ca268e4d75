#include "host/engine/cuda/cuda_adapters.h"
#include "host/engine/cuda/op_kernels.h"
#include "host/engine/lowered_ops.h"

namespace orcd::engine::cuda {

AdapterTable MakeCudaAdapterTable() {
  AdapterTable table(ORCD_BACKEND_CUDA, "cuda", &CudaSupportsWeight);
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
  // Lowered ops: the lowering step fuses what these cover (lowering.h).
  table.Register(kOpAddRmsNorm, &RunAddRmsNorm);
  table.Register(kOpRopeFused, &RunRopeFused);
  table.Register(kOpMatmulSharedInput, &RunMatmul);
  table.Register(kOpSwigluQ8, &RunSwiglu);
  table.Register(kOpAttentionFused, &RunAttention);
  table.Register(kOpMatmulGlu, &RunMatmulGlu);
  table.Register(kOpMoeGlu, &RunMoe);
  table.Register(kOpMatmulMulti, &RunMatmulMulti);
  return table;
}

bool CudaSupportsWeight(const WeightRef& w) {
  if (DenseTypeSupported(w.type)) return true;
  const orcd_quant_cuda_ops* ops = w.quant ? w.quant->cuda : nullptr;
  return ops != nullptr && ops->get_rows != nullptr && ops->matvec != nullptr &&
         ops->matmul != nullptr;
}

void CheckLaunch(ExecContext& ctx, const BoundInstruction& insn, int error) {
  Backend(ctx).runtime().Check(error, insn.label);
}

}  // namespace orcd::engine::cuda
