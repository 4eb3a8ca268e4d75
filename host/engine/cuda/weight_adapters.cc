// EMBEDDING, MATMUL (+bias, split outputs), LOGITS and POSITION_EMBEDDING on
// the device: quantized weights through their plugin's CUDA ops (launched on
// the backend's stream), the host's F32/F16/BF16 through the dense matvec
// (one token) or the runtime's GEMM (cuBLAS on the GPU; many tokens). One
// token with a quantized weight takes 8-bit activations (matvec_q8) unless
// the backend's q8 path is off; prompt tokens take tensor cores (dequantized
// f16 chunks and the GEMM), however few, unless the backend's f16 prefill is
// off or the phase is too small for it (kTensorCorePrefillTokens).
#include <algorithm>

#include "host/engine/cuda/cuda_adapters.h"
#include "host/engine/lowered_ops.h"
#include "host/engine/row_lookup_checks.h"
#include "host/plugins/host_services.h"

namespace orcd::engine::cuda {

bool TakesQ8Input(const WeightRef& w) {
  if (DenseTypeSupported(w.type) || w.cols() % 32 != 0) return false;
  const orcd_quant_cuda_ops* ops = w.quant->cuda;
  return ORCD_HAS_FIELD(ops, orcd_quant_cuda_ops, matvec_ids_q8) && ops->matvec_q8 != nullptr &&
         ops->matvec_ids_q8 != nullptr;
}

bool FusesGateUp(const WeightRef& gate, const WeightRef& up) {
  if (!TakesQ8Input(gate) || gate.type != up.type || gate.ne != up.ne) return false;
  const orcd_quant_cuda_ops* ops = gate.quant->cuda;
  return ORCD_HAS_FIELD(ops, orcd_quant_cuda_ops, matvec_glu_q8) && ops->matvec_glu_q8 != nullptr;
}

namespace {

bool ServesMultiQ8(const WeightRef& w) {
  const orcd_quant_cuda_ops* ops = w.quant->cuda;
  return ORCD_HAS_FIELD(ops, orcd_quant_cuda_ops, matvec_multi_q8) &&
         ops->matvec_multi_q8 != nullptr;
}

bool ServesXsQ8(const WeightRef& w) {
  const orcd_quant_cuda_ops* ops = w.quant->cuda;
  return ORCD_HAS_FIELD(ops, orcd_quant_cuda_ops, matvec_xs_q8) && ops->matvec_xs_q8 != nullptr;
}

}  // namespace

bool ServesGetRowsF16(const WeightRef& w) {
  const orcd_quant_cuda_ops* ops = w.quant->cuda;
  return ORCD_HAS_FIELD(ops, orcd_quant_cuda_ops, get_rows_f16) && ops->get_rows_f16 != nullptr;
}

bool JoinsMatvecs(const WeightRef& a, const WeightRef& b) {
  return TakesQ8Input(a) && a.type == b.type && a.cols() == b.cols() && ServesMultiQ8(a);
}

const orcd_q8_x32* QuantizedInput(ExecContext& ctx, const BoundInstruction& insn,
                                  const WeightRef& w, const float* x, int64_t n_rows,
                                  int64_t x_stride) {
  CudaBackend& b = Backend(ctx);
  b.set_q8_source({});
  if (!b.q8_activations_on() || !TakesQ8Input(w) || n_rows * (w.cols() / 32) > b.q8_capacity())
    return nullptr;
  CheckLaunch(
      ctx, insn,
      b.kernels().quantize_q8(x, x_stride, n_rows, w.cols(), b.q8_activations(), b.stream()));
  if (x_stride == w.cols()) b.set_q8_source({x, n_rows, w.cols()});
  return b.q8_activations();
}

namespace {

// Prefill with a quantized weight on tensor cores, as llama.cpp does without
// its MMQ kernels: the weight's rows are dequantized in chunks (the plugin's
// get_rows_f16 in one pass; before ABI 1.8, get_rows then f16: the same bits)
// and multiplied by the runtime's f16 GEMM (cuBLAS), activations rounded to
// f16 once. y rows [r, r + chunk) of every token are
// column-major C at y + r, ldc y_stride.
void DequantizedGemm(ExecContext& ctx, const BoundInstruction& insn, const WeightRef& w,
                     const uint8_t* rows, int64_t n_rows, const float* x, int64_t n_tokens,
                     float* y, int64_t y_stride) {
  CudaBackend& b = Backend(ctx);
  const PrefillScratch& s = b.prefill_scratch();
  const int64_t cols = w.cols();
  CheckLaunch(ctx, insn, b.kernels().to_half(x, b.gemm_operand(), n_tokens * cols, 1, b.stream()));
  const int64_t chunk = std::max<int64_t>(1, s.elements / cols);
  for (int64_t r = 0; r < n_rows; r += chunk) {
    const int64_t n = std::min(chunk, n_rows - r);
    const uint8_t* chunk_rows = rows + static_cast<uint64_t>(r) * w.row_bytes;
    if (ServesGetRowsF16(w)) {
      ThrowIfPluginError(
          w.quant->cuda->get_rows_f16(chunk_rows, cols, s.row_ids, n, s.f16, b.stream()),
          insn.label);
    } else {
      ThrowIfPluginError(w.quant->cuda->get_rows(chunk_rows, cols, s.row_ids, n, s.f32, b.stream()),
                         insn.label);
      CheckLaunch(ctx, insn, b.kernels().to_half(s.f32, s.f16, n * cols, 1, b.stream()));
    }
    b.runtime().Gemm(true, n, n_tokens, cols, GemmType::kF16, s.f16, cols, b.gemm_operand(), cols,
                     y + r, y_stride);
  }
}

}  // namespace

void DeviceMatmulRows(ExecContext& ctx, const BoundInstruction& insn, const WeightRef& w,
                      int64_t row0, int64_t n_rows, const float* x, int64_t n_tokens, float* y,
                      int64_t y_stride, const orcd_q8_x32* xq) {
  CudaBackend& b = Backend(ctx);
  const uint8_t* rows = DeviceData(w) + static_cast<uint64_t>(row0) * w.row_bytes;
  // Prompt rows take one arithmetic whatever the size of their chunk (a
  // prefix-cache hit evaluates the rest of its prompt in other chunks than a
  // cold run, and must give its bits): decode arithmetic is for generated
  // rows, and for LOGITS's one row (one whatever the chunk).
  const bool decode = DecodeRows(ctx) || (insn.opcode == ORCD_OP_LOGITS && n_tokens == 1);
  const int64_t expert_bytes = static_cast<int64_t>(w.row_bytes) * n_rows;  // one "expert"
  if (xq != nullptr) {
    const orcd_quant_cuda_ops& ops = *w.quant->cuda;
    orcd_error* e = nullptr;
    if (n_tokens == 1) {
      e = ops.matvec_q8(rows, n_rows, w.cols(), xq, y, b.stream());
    } else if (ServesXsQ8(w)) {
      // Each weight block read once for several rows (ABI 1.7), matvec_q8's dots.
      e = ops.matvec_xs_q8(rows, n_rows, w.cols(), xq, w.cols() / 32, n_tokens, y, y_stride,
                           b.stream());
    } else {
      // Every token "expert 0" of matvec_ids_q8: matvec_q8's dots, the weight per token.
      e = ops.matvec_ids_q8(rows, n_rows, w.cols(), expert_bytes, b.zero_ids(), n_tokens, 1, xq,
                            w.cols() / 32, y, y_stride, b.stream());
    }
    ThrowIfPluginError(e, insn.label);
    return;
  }
  if (DenseTypeSupported(w.type) && !decode) {
    // cuBLAS: W row-major [n_rows][cols] is column-major cols x n_rows, so
    // y^T (n_rows x n_tokens, ldc y_stride) = W^T x^T with x^T cols x n_tokens.
    // 16-bit weights take 16-bit activations (rounded, as llama.cpp does).
    const void* operand = x;
    GemmType type = GemmType::kF32;
    if (w.type != 0) {
      type = w.type == 1 ? GemmType::kF16 : GemmType::kBF16;
      CheckLaunch(
          ctx, insn,
          b.kernels().to_half(x, b.gemm_operand(), n_tokens * w.cols(), w.type, b.stream()));
      operand = b.gemm_operand();
    }
    b.runtime().Gemm(true, n_rows, n_tokens, w.cols(), type, rows, w.cols(), operand, w.cols(), y,
                     y_stride);
    return;
  }
  if (DenseTypeSupported(w.type)) {
    CheckLaunch(ctx, insn,
                b.kernels().dense_matvec_ids(w.type, rows, n_rows, w.cols(), 0, nullptr, n_tokens,
                                             1, x, w.cols(), y, y_stride, b.stream()));
    return;
  }
  // The scratch was sized for the MATMULs that take this path (a LOGITS over
  // many rows may not fit it, nor a pre-1.8 plugin's weight a chunk without
  // its f32 half: they keep the plugin's kernel).
  const PrefillScratch& scratch = b.prefill_scratch();
  if (!decode && scratch.elements >= w.cols() && (scratch.f32 != nullptr || ServesGetRowsF16(w)) &&
      static_cast<uint64_t>(n_tokens * w.cols()) * 2 <= b.gemm_operand_bytes()) {
    DequantizedGemm(ctx, insn, w, rows, n_rows, x, n_tokens, y, y_stride);
    return;
  }
  const orcd_quant_cuda_ops& ops = *w.quant->cuda;
  if (!decode) {
    ThrowIfPluginError(ops.matmul(rows, n_rows, w.cols(), x, n_tokens, y, y_stride, b.stream()),
                       insn.label);
    return;
  }
  // Decode rows in f32 (the q8 path off): matvec's arithmetic per token.
  if (n_tokens > 1 && ORCD_HAS_FIELD(&ops, orcd_quant_cuda_ops, matvec_ids) &&
      ops.matvec_ids != nullptr) {
    ThrowIfPluginError(ops.matvec_ids(rows, n_rows, w.cols(), expert_bytes, b.zero_ids(), n_tokens,
                                      1, x, w.cols(), y, y_stride, b.stream()),
                       insn.label);
    return;
  }
  for (int64_t t = 0; t < n_tokens; ++t) {  // a pre-1.2 plugin: a launch per token
    ThrowIfPluginError(
        ops.matvec(rows, n_rows, w.cols(), x + t * w.cols(), y + t * y_stride, b.stream()),
        insn.label);
  }
}

void DeviceGetRows(ExecContext& ctx, const BoundInstruction& insn, const WeightRef& w,
                   const int32_t* ids, int64_t n_ids, float* out) {
  CudaBackend& b = Backend(ctx);
  if (DenseTypeSupported(w.type)) {
    CheckLaunch(
        ctx, insn,
        b.kernels().dense_get_rows(w.type, DeviceData(w), w.cols(), ids, n_ids, out, b.stream()));
    return;
  }
  ThrowIfPluginError(w.quant->cuda->get_rows(DeviceData(w), w.cols(), ids, n_ids, out, b.stream()),
                     insn.label);
}

namespace {

// Decode rows' 8-bit input for w: the previous MATMUL's rounding of the same
// register when the lowering says they share it and that rounding is there
// (a weight on the f32 path left none), else a fresh one.
const orcd_q8_x32* MatmulQ8Input(ExecContext& ctx, const BoundInstruction& insn, const WeightRef& w,
                                 const float* x, bool shared) {
  if (!DecodeRows(ctx)) return nullptr;
  CudaBackend& b = Backend(ctx);
  const int64_t rows = ctx.n_tokens;
  if (shared && b.q8_activations_on() &&
      b.q8_source() == CudaBackend::Q8Source{x, rows, w.cols()} && TakesQ8Input(w)) {
    return b.q8_activations();
  }
  return QuantizedInput(ctx, insn, w, x, rows, w.cols());
}

}  // namespace

// One launch for every output of a split matmul at one token (Phi-3's
// fused QKV): the plugin's matvec_multi_q8 over the row ranges; false where
// it does not serve it.
bool SplitMatvecQ8(ExecContext& ctx, const BoundInstruction& insn, const WeightRef& w,
                   const orcd_q8_x32* xq) {
  if (ctx.n_tokens != 1 || insn.out.size() < 2 || insn.out.size() > 4 || !ServesMultiQ8(w))
    return false;
  orcd_matvec_part parts[4];
  uint64_t offset = 0;
  for (size_t i = 0; i < insn.out.size(); ++i) {
    parts[i] = {DeviceData(w) + offset, insn.out[i].width, ctx.Out(insn, i)};
    offset += static_cast<uint64_t>(insn.out[i].width) * w.row_bytes;
  }
  ThrowIfPluginError(w.quant->cuda->matvec_multi_q8(parts, static_cast<int32_t>(insn.out.size()),
                                                    w.cols(), xq, Backend(ctx).stream()),
                     insn.label);
  return true;
}

// MATMUL and MATMUL_SHARED_INPUT.
void RunMatmul(const BoundInstruction& insn, ExecContext& ctx) {
  const WeightRef& w = *insn.weights[0];
  const float* bias = insn.weights.size() == 2 ? DeviceFloats(insn.weights[1]) : nullptr;
  const float* x = ctx.In(insn, 0);
  // One token: x is rounded once for every output of a split matmul.
  const orcd_q8_x32* xq = MatmulQ8Input(ctx, insn, w, x, insn.opcode == kOpMatmulSharedInput);
  const bool split_done = xq != nullptr && SplitMatvecQ8(ctx, insn, w, xq);
  int64_t begin = 0;
  for (size_t i = 0; i < insn.out.size(); ++i) {
    const int64_t width = insn.out[i].width;
    float* y = ctx.Out(insn, i);
    if (!split_done) DeviceMatmulRows(ctx, insn, w, begin, width, x, ctx.n_tokens, y, width, xq);
    if (bias) {
      CudaBackend& b = Backend(ctx);
      CheckLaunch(ctx, insn,
                  b.kernels().add_bias(y, bias + begin, width, width, ctx.n_tokens, b.stream()));
    }
    begin += width;
  }
}

// MATMUL_GLU: one token through the plugin's matvec_glu_q8 (h only); else,
// or where the input stays f32, the gate and up MATMULs and the SWIGLU.
void RunMatmulGlu(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  const WeightRef& gate = *insn.weights[0];
  const WeightRef& up = *insn.weights[1];
  const float* x = ctx.In(insn, 0);
  const int64_t f = insn.out[2].width;
  const orcd_q8_x32* xq =
      MatmulQ8Input(ctx, insn, gate, x, insn.ParamsAs<LoweredMatvecParams>().shared_input != 0);
  // Several decode rows take gate and up through matvec_xs_q8 (each weight
  // read once for them) and the activation apart: the same bits as the
  // fused launch, which reads both weights once per row.
  // (FusesGateUp: up is gate's type.)
  if (xq != nullptr && FusesGateUp(gate, up) && (ctx.n_tokens == 1 || !ServesXsQ8(gate))) {
    const orcd_glu_params glu{ORCD_MOE_ACT_SWIGLU, 0.0f, 0.0f, nullptr, nullptr};
    ThrowIfPluginError(gate.quant->cuda->matvec_glu_q8(
                           DeviceData(gate), DeviceData(up), f, gate.cols(), f * gate.row_bytes,
                           ctx.n_tokens == 1 ? nullptr : b.zero_ids(), ctx.n_tokens, 1, xq,
                           gate.cols() / 32, &glu, ctx.Out(insn, 2), f, b.stream()),
                       insn.label);
    return;
  }
  float* g = ctx.Out(insn, 0);
  float* u = ctx.Out(insn, 1);
  DeviceMatmulRows(ctx, insn, gate, 0, f, x, ctx.n_tokens, g, f, xq);
  DeviceMatmulRows(ctx, insn, up, 0, f, x, ctx.n_tokens, u, f, TakesQ8Input(up) ? xq : nullptr);
  CheckLaunch(
      ctx, insn,
      b.kernels().glu(g, u, f, ctx.Out(insn, 2), f, ctx.n_tokens, ORCD_MOE_ACT_SWIGLU, b.stream()));
}

// MATMUL_MULTI: one token's rows of every weight through the plugin's
// matvec_multi_q8; else (several decode rows too), or where the input stays
// f32, a MATMUL each.
void RunMatmulMulti(const BoundInstruction& insn, ExecContext& ctx) {
  const WeightRef& first = *insn.weights[0];
  const float* x = ctx.In(insn, 0);
  const orcd_q8_x32* xq =
      MatmulQ8Input(ctx, insn, first, x, insn.ParamsAs<LoweredMatvecParams>().shared_input != 0);
  if (xq != nullptr && ctx.n_tokens == 1 && ServesMultiQ8(first)) {
    orcd_matvec_part parts[4];
    for (size_t j = 0; j < insn.weights.size(); ++j)
      parts[j] = {DeviceData(*insn.weights[j]), insn.out[j].width, ctx.Out(insn, j)};
    ThrowIfPluginError(
        first.quant->cuda->matvec_multi_q8(parts, static_cast<int32_t>(insn.weights.size()),
                                           first.cols(), xq, Backend(ctx).stream()),
        insn.label);
    return;
  }
  for (size_t j = 0; j < insn.weights.size(); ++j) {
    const WeightRef& w = *insn.weights[j];
    DeviceMatmulRows(ctx, insn, w, 0, w.rows(), x, ctx.n_tokens, ctx.Out(insn, j), w.rows(),
                     TakesQ8Input(w) ? xq : nullptr);
  }
}

void RunLogits(const BoundInstruction& insn, ExecContext& ctx) {
  const WeightRef& w = *insn.weights[0];
  if (ctx.logit_row_list != nullptr) {
    // The listed rows of a step (decoding sequences' and prompts' last rows,
    // not one span), into consecutive logits rows: each prompt row alone and
    // each run of consecutive generated rows together, so that every row
    // takes the one-row arithmetic its solo run takes.
    for (int64_t i = 0; i < ctx.logit_rows;) {
      const int64_t row = ctx.logit_row_list[i];
      int64_t n = 1;
      while (ctx.Generated(row) && i + n < ctx.logit_rows && ctx.logit_row_list[i + n] == row + n &&
             ctx.Generated(row + n)) {
        ++n;
      }
      ExecContext run = ctx.Rows(row, row + n);
      run.logits = ctx.logits + i * w.rows();
      run.first_logit_row = 0;
      run.logit_rows = n;
      run.logit_row_list = nullptr;
      RunLogits(insn, run);
      i += n;
    }
    return;
  }
  const float* x = ctx.In(insn, 0) + ctx.first_logit_row * w.cols();
  // One row, or decode rows (each with one token's arithmetic).
  const orcd_q8_x32* xq = ctx.logit_rows == 1 || DecodeRows(ctx)
                              ? QuantizedInput(ctx, insn, w, x, ctx.logit_rows, w.cols())
                              : nullptr;
  DeviceMatmulRows(ctx, insn, w, 0, w.rows(), x, ctx.logit_rows, ctx.logits, w.rows(), xq);
  const float softcap = insn.ParamsAs<orcd_op_logits_params>().softcap;
  if (softcap > 0.0f) {
    CudaBackend& b = Backend(ctx);
    CheckLaunch(ctx, insn,
                b.kernels().softcap(ctx.logits, softcap, ctx.logit_rows * w.rows(), b.stream()));
  }
}

void RunEmbedding(const BoundInstruction& insn, ExecContext& ctx) {
  const WeightRef& w = *insn.weights[0];
  CheckTokenIds(w, ctx.tokens, ctx.n_tokens);  // the host copy of the ids: no read-back
  CudaBackend& b = Backend(ctx);
  DeviceGetRows(ctx, insn, w, b.tokens(), ctx.n_tokens, ctx.Out(insn, 0));
  if (!insn.params.empty()) {
    CheckLaunch(ctx, insn,
                b.kernels().scale(ctx.Out(insn, 0), insn.ParamsAs<orcd_op_embedding_params>().scale,
                                  ctx.n_tokens * w.cols(), b.stream()));
  }
}

void RunPositionEmbedding(const BoundInstruction& insn, ExecContext& ctx) {
  const WeightRef& table = *insn.weights[0];
  for (int64_t t = 0; t < ctx.n_tokens; ++t) CheckLearnedPositions(table, ctx.Position(t), 1);
  CudaBackend& b = Backend(ctx);
  CheckLaunch(ctx, insn,
              b.kernels().positions(b.position_ids(), b.step(), ctx.n_tokens, b.stream()));
  DeviceGetRows(ctx, insn, table, b.position_ids(), ctx.n_tokens, ctx.Out(insn, 0));
}

}  // namespace orcd::engine::cuda
