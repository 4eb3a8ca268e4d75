// The CUDA backend's adapters, one per host macro-op (orcd/ops.h), and the
// table that maps opcodes to them. They run on the device of the
// ExecContext's CudaBackend: registers, logits, KV cache and weights are
// device memory; everything is enqueued on its stream and nothing waits
// (the executor's FinishRun reads the logits back).
#ifndef ORCD_HOST_ENGINE_CUDA_CUDA_ADAPTERS_H_
#define ORCD_HOST_ENGINE_CUDA_CUDA_ADAPTERS_H_

#include "host/engine/adapter_table.h"
#include "host/engine/cuda/cuda_backend.h"
#include "host/engine/exec_context.h"

namespace orcd::engine::cuda {

AdapterTable MakeCudaAdapterTable();

// Whether the CUDA backend can run matmul / get_rows on w: host types F32,
// F16, BF16, or a quant plugin type with CUDA ops.
bool CudaSupportsWeight(const WeightRef& w);

inline CudaBackend& Backend(ExecContext& ctx) { return *static_cast<CudaBackend*>(ctx.device); }
inline const uint8_t* DeviceData(const WeightRef& w) { return w.device_data; }
inline const float* DeviceFloats(const WeightRef* w) {
  return w ? reinterpret_cast<const float*>(w->device_data) : nullptr;
}
// Whether the run's rows are decode rows: generated tokens (ExecContext::
// Generated), one or several sequences' each. They take the one-token
// arithmetic (matvec_q8, split-KV attention, MoE matvecs) whatever their
// number, so that a sequence's bits do not depend on what shares its step.
// An adapter that asks runs over rows of one kind: the table runs the
// matmul and MoE adapters once per kind run of a mixed step (ExecContext::
// Rows), and ATTENTION and LOGITS split their rows themselves.
inline bool DecodeRows(const ExecContext& ctx) { return ctx.Generated(0); }
// Throws kDevice naming the instruction when a launch failed.
void CheckLaunch(ExecContext& ctx, const BoundInstruction& insn, int error);

// Whether one token's input of w goes to the plugin's matvec_q8 when the
// backend's q8 path is on: a quant type with the ABI 1.3 ops, cols % 32 == 0.
bool TakesQ8Input(const WeightRef& w);

// Whether one token's gate and up matvecs with these weights can run as one
// launch with their activation (the plugin's matvec_glu_q8, ABI 1.5): both
// take q8 input, one type and shape.
bool FusesGateUp(const WeightRef& gate, const WeightRef& up);
// Whether one token's matvecs of a and b (one input) can run as one launch
// (matvec_multi_q8, ABI 1.5): both take q8 input, one type and width.
bool JoinsMatvecs(const WeightRef& a, const WeightRef& b);

// x (n_rows rows, x_stride apart) rounded to 8 bits in the backend's q8
// scratch for w's matvec_q8 (ABI 1.3), or null where the f32 path serves: a
// host weight type, a plugin without the op, or the q8 path switched off.
const orcd_q8_x32* QuantizedInput(ExecContext& ctx, const BoundInstruction& insn,
                                  const WeightRef& w, const float* x, int64_t n_rows,
                                  int64_t x_stride);
// y[t * y_stride + r] = W[row0 + r] . x[t] on the device, for n_rows rows;
// with xq (QuantizedInput of x's n_tokens rows) through the plugin's
// matvec_q8 (one token) or matvec_xs_q8 (several: the same dots; else
// matvec_ids_q8, the weight read per token). Decode
// rows (DecodeRows) keep one token's arithmetic per row.
void DeviceMatmulRows(ExecContext& ctx, const BoundInstruction& insn, const WeightRef& w,
                      int64_t row0, int64_t n_rows, const float* x, int64_t n_tokens, float* y,
                      int64_t y_stride, const orcd_q8_x32* xq = nullptr);
// out[i][:] = row ids[i] (device ids) of w.
void DeviceGetRows(ExecContext& ctx, const BoundInstruction& insn, const WeightRef& w,
                   const int32_t* ids, int64_t n_ids, float* out);

void RunEmbedding(const BoundInstruction& insn, ExecContext& ctx);
void RunMatmul(const BoundInstruction& insn, ExecContext& ctx);
void RunLogits(const BoundInstruction& insn, ExecContext& ctx);
void RunPositionEmbedding(const BoundInstruction& insn, ExecContext& ctx);
void RunAdd(const BoundInstruction& insn, ExecContext& ctx);
void RunMul(const BoundInstruction& insn, ExecContext& ctx);
void RunSwiglu(const BoundInstruction& insn, ExecContext& ctx);
void RunGelu(const BoundInstruction& insn, ExecContext& ctx);
void RunRmsNorm(const BoundInstruction& insn, ExecContext& ctx);
void RunLayerNorm(const BoundInstruction& insn, ExecContext& ctx);
void RunRope(const BoundInstruction& insn, ExecContext& ctx);
// Lowered ops (lowered_ops.h); MATMUL_SHARED_INPUT runs through RunMatmul,
// SWIGLU_Q8 through RunSwiglu, ATTENTION_FUSED through RunAttention, MOE_GLU
// through RunMoe.
void RunAddRmsNorm(const BoundInstruction& insn, ExecContext& ctx);
void RunRopeFused(const BoundInstruction& insn, ExecContext& ctx);
void RunAttention(const BoundInstruction& insn, ExecContext& ctx);
void RunMatmulGlu(const BoundInstruction& insn, ExecContext& ctx);
void RunMatmulMulti(const BoundInstruction& insn, ExecContext& ctx);
void RunMoe(const BoundInstruction& insn, ExecContext& ctx);

}  // namespace orcd::engine::cuda

#endif  // ORCD_HOST_ENGINE_CUDA_CUDA_ADAPTERS_H_
