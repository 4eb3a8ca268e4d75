#include <algorithm>

#include "host/engine/cuda/cuda_adapters.h"
#include "host/engine/cuda/op_kernels.h"
#include "host/engine/lowered_ops.h"

namespace orcd::engine::cuda {

namespace {

// A step that mixes prompt rows with generated ones (a decoding sequence's
// token beside a newcomer's prompt chunk) runs `Run` once per kind run, each
// with its own arithmetic (DecodeRows): the weights are read once per run,
// and a row's bits never depend on the other kind sharing its step.
template <void (*Run)(const BoundInstruction&, ExecContext&)>
void ByKindRun(const BoundInstruction& insn, ExecContext& ctx) {
  if (ctx.generated == nullptr || ctx.n_tokens < 2 ||
      std::all_of(ctx.generated, ctx.generated + ctx.n_tokens,
                  [&](uint8_t g) { return g == ctx.generated[0]; })) {
    Run(insn, ctx);
    return;
  }
  const uint64_t preset = ctx.weight_bytes_read;
  uint64_t bytes = 0;
  ForEachKindRun(ctx, [&](int64_t t0, int64_t t1, bool) {
    ExecContext run = ctx.Rows(t0, t1);
    run.weight_bytes_read = preset;
    Run(insn, run);
    bytes += run.weight_bytes_read;
  });
  ctx.weight_bytes_read = bytes;
}

}  // namespace

AdapterTable MakeCudaAdapterTable() {
  AdapterTable table(ORCD_BACKEND_CUDA, "cuda", &CudaSupportsWeight);
  table.Register(ORCD_OP_EMBEDDING, &RunEmbedding);
  table.Register(ORCD_OP_MATMUL, &ByKindRun<&RunMatmul>);
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
  table.Register(ORCD_OP_MOE, &ByKindRun<&RunMoe>);
  // Lowered ops: the lowering step fuses what these cover (lowering.h).
  table.Register(kOpAddRmsNorm, &RunAddRmsNorm);
  table.Register(kOpRopeFused, &RunRopeFused);
  table.Register(kOpMatmulSharedInput, &ByKindRun<&RunMatmul>);
  table.Register(kOpSwigluQ8, &RunSwiglu);
  table.Register(kOpAttentionFused, &RunAttention);
  table.Register(kOpMatmulGlu, &ByKindRun<&RunMatmulGlu>);
  table.Register(kOpMoeGlu, &ByKindRun<&RunMoe>);
  table.Register(kOpMatmulMulti, &ByKindRun<&RunMatmulMulti>);
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
