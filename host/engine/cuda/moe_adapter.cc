// MOE on the device: routing (top-k and gating weights), the picked experts'
// gate/up/down matvecs through expert ids that stay in device memory (quant
// ABI 1.2 matvec_ids; the dense kernels for F32/F16/BF16), the activation and
// the weighted sum. Plugins older than 1.2 get a fallback that reads the ids
// back to the host once per MOE instruction. One token takes 8-bit
// activations where the plugin serves matvec_ids_q8 (ABI 1.3), and, lowered
// to MOE_GLU, each pick's gate and up rows and activation in one launch
// (matvec_glu_q8, ABI 1.5). A prefill run (kTensorCorePrefillTokens tokens or
// more) groups the pairs by expert: one matmul per expert over its tokens.
#include <algorithm>
#include <string>
#include <vector>

#include "host/engine/cuda/cuda_adapters.h"
#include "host/engine/lowered_ops.h"
#include "host/plugins/host_services.h"

namespace orcd::engine::cuda {
namespace {

// y[i * y_stride + r] = W_{ids[i]}[r] . x[(i / ids_per_x) * x_stride ..] for
// i < pairs, r < rows (one expert's rows).
// With xq (x's rows rounded by QuantizedInput) through matvec_ids_q8.
void ExpertMatvecs(ExecContext& ctx, const BoundInstruction& insn, const WeightRef& w,
                   const int32_t* ids, int64_t pairs, int64_t ids_per_x, const float* x,
                   int64_t x_stride, float* y, int64_t y_stride, const orcd_q8_x32* xq) {
  CudaBackend& b = Backend(ctx);
  const int64_t rows = w.ne[1];
  const int64_t expert_bytes = static_cast<int64_t>(w.row_bytes) * rows;
  if (xq != nullptr) {
    ThrowIfPluginError(
        w.quant->cuda->matvec_ids_q8(DeviceData(w), rows, w.cols(), expert_bytes, ids, pairs,
                                     ids_per_x, xq, w.cols() / 32, y, y_stride, b.stream()),
        insn.label);
    return;
  }
  if (DenseTypeSupported(w.type)) {
    CheckLaunch(
        ctx, insn,
        b.kernels().dense_matvec_ids(w.type, DeviceData(w), rows, w.cols(), rows * w.cols(), ids,
                                     pairs, ids_per_x, x, x_stride, y, y_stride, b.stream()));
    return;
  }
  const orcd_quant_cuda_ops* ops = w.quant->cuda;
  if (ORCD_HAS_FIELD(ops, orcd_quant_cuda_ops, matvec_ids) && ops->matvec_ids != nullptr) {
    ThrowIfPluginError(ops->matvec_ids(DeviceData(w), rows, w.cols(), expert_bytes, ids, pairs,
                                       ids_per_x, x, x_stride, y, y_stride, b.stream()),
                       insn.label);
    return;
  }
  std::vector<int32_t> host_ids(static_cast<size_t>(pairs));
  b.runtime().CopyToHost(host_ids.data(), ids, host_ids.size() * sizeof(int32_t));
  for (int64_t i = 0; i < pairs; ++i) {
    ThrowIfPluginError(ops->matvec(DeviceData(w) + host_ids[i] * expert_bytes, rows, w.cols(),
                                   x + (i / ids_per_x) * x_stride, y + i * y_stride, b.stream()),
                       insn.label);
  }
}

// Prefill: the (token, pick) pairs grouped by expert, so that each expert's
// weights are read once for all of its tokens, in one matmul per expert
// (DeviceMatmulRows: tensor cores however few the expert's rows),
// instead of one matvec per pair. On an H100 the per-pair matvecs took 31 of
// the 41 ms of a 128-token GPT-OSS-20B prefill (bench/RESULTS.md). The picks
// are read back to size each expert's matmul (prefill waits for the host
// anyway; a decode step never groups). Within an expert, pairs keep token
// order, so a run's result does not depend on timing.
void GroupedExpertMatmuls(ExecContext& ctx, const BoundInstruction& insn,
                          const orcd_op_moe_params& p, const float* x, int64_t n,
                          const float* const bias[3]) {
  CudaBackend& b = Backend(ctx);
  const OpKernels& k = b.kernels();
  const MoeScratch& s = b.moe();
  const WeightRef& gate = *insn.weights[0];
  const WeightRef& up = *insn.weights[1];
  const WeightRef& down = *insn.weights[2];
  const int64_t d = insn.out[0].width;
  const int64_t f = gate.ne[1];
  const int64_t used = p.n_expert_used;
  const int64_t pairs = n * used;

  std::vector<int32_t> ids(static_cast<size_t>(pairs));
  b.runtime().CopyToHost(ids.data(), s.ids, ids.size() * sizeof(int32_t));
  // A counting sort by expert: first[e] is expert e's first grouped row.
  std::vector<int64_t> first(static_cast<size_t>(p.n_expert) + 1, 0);
  for (const int32_t id : ids) {
    if (id < 0 || id >= static_cast<int32_t>(p.n_expert)) {
      throw Error(ErrorCode::kInternal, insn.label + ": routing picked expert " +
                                            std::to_string(id) + " of " +
                                            std::to_string(p.n_expert));
    }
    ++first[static_cast<size_t>(id) + 1];
  }
  for (size_t e = 0; e < p.n_expert; ++e) first[e + 1] += first[e];
  // order: [token of each grouped row][its expert][grouped row of each pair].
  std::vector<int32_t> order(static_cast<size_t>(3 * pairs));
  std::vector<int64_t> next(first.begin(), first.end() - 1);
  for (int64_t i = 0; i < pairs; ++i) {
    const int64_t row = next[static_cast<size_t>(ids[static_cast<size_t>(i)])]++;
    order[static_cast<size_t>(row)] = static_cast<int32_t>(i / used);
    order[static_cast<size_t>(pairs + row)] = ids[static_cast<size_t>(i)];
    order[static_cast<size_t>(2 * pairs + i)] = static_cast<int32_t>(row);
  }
  // Pageable source: the copy returns once the bytes are staged.
  b.runtime().CopyToDevice(s.order, order.data(), order.size() * sizeof(int32_t));
  const int32_t* token_of_row = s.order;
  const int32_t* expert_of_row = s.order + pairs;
  const int32_t* row_of_pair = s.order + 2 * pairs;

  constexpr uint32_t kF32 = 0;
  CheckLaunch(ctx, insn, k.dense_get_rows(kF32, x, d, token_of_row, pairs, s.grouped, b.stream()));
  for (size_t e = 0; e < p.n_expert; ++e) {
    const int64_t row = first[e], count = first[e + 1] - first[e];
    if (count == 0) continue;
    const int64_t expert = static_cast<int64_t>(e);
    DeviceMatmulRows(ctx, insn, gate, expert * f, f, s.grouped + row * d, count, s.gate + row * f,
                     f, nullptr);
    DeviceMatmulRows(ctx, insn, up, expert * f, f, s.grouped + row * d, count, s.up + row * f, f,
                     nullptr);
  }
  CheckLaunch(ctx, insn,
              k.moe_activate(s.gate, s.up, bias[0], bias[1], expert_of_row, pairs, f,
                             static_cast<int>(p.activation), p.alpha, p.limit, b.stream()));
  for (size_t e = 0; e < p.n_expert; ++e) {
    const int64_t row = first[e], count = first[e + 1] - first[e];
    if (count == 0) continue;
    DeviceMatmulRows(ctx, insn, down, static_cast<int64_t>(e) * d, d, s.gate + row * f, count,
                     s.grouped + row * d, d, nullptr);
  }
  // Back to pair order for the weighted sum.
  CheckLaunch(ctx, insn,
              k.dense_get_rows(kF32, s.grouped, d, row_of_pair, pairs, s.down, b.stream()));
}

uint64_t ExpertBytes(const WeightRef& w, const WeightRef* bias) {
  return w.row_bytes * static_cast<uint64_t>(w.ne[1]) +
         (bias ? static_cast<uint64_t>(w.ne[1]) * sizeof(float) : 0);
}

}  // namespace

void RunMoe(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  const OpKernels& k = b.kernels();
  const MoeScratch& s = b.moe();
  const auto p = insn.ParamsAs<orcd_op_moe_params>();
  const WeightRef& gate = *insn.weights[0];
  const WeightRef& up = *insn.weights[1];
  const WeightRef& down = *insn.weights[2];
  const bool biased = insn.weights.size() == 6;
  const int64_t d = insn.out[0].width;
  const int64_t f = gate.ne[1];
  const int64_t n = ctx.n_tokens;
  const int64_t used = p.n_expert_used;
  const int64_t pairs = n * used;
  const float* x = ctx.In(insn, 0);

  MoeRouteArgs route{
      ctx.In(insn, 1),         s.ids, s.weights, n, p.n_expert, used, static_cast<int>(p.gating),
      p.normalize_weights != 0};
  CheckLaunch(ctx, insn, k.moe_route(route, b.stream()));
  // Decode rows: x is rounded once for gate and up (same type: one rounding),
  // and each token keeps one token's arithmetic whatever else the step holds.
  const bool decode = DecodeRows(ctx);
  const orcd_q8_x32* xq =
      decode && gate.type == up.type ? QuantizedInput(ctx, insn, gate, x, n, d) : nullptr;
  // Biases are added by the activation and the combination as they read.
  const float* bias[3] = {};
  if (biased) {
    for (int i = 0; i < 3; ++i) bias[i] = DeviceFloats(insn.weights[3 + i]);
  }
  // Prompt rows group their pairs by expert whatever the chunk's size (one
  // arithmetic per row: a prefix-cache hit's chunks differ from a cold run's).
  const bool grouped = !decode && s.grouped != nullptr;
  if (grouped) {
    GroupedExpertMatmuls(ctx, insn, p, x, n, bias);
  } else if (insn.opcode == kOpMoeGlu && xq != nullptr && FusesGateUp(gate, up)) {
    // Each pick's gate and up rows and the activation in one launch.
    const orcd_glu_params glu{p.activation, p.alpha, p.limit, bias[0], bias[1]};
    ThrowIfPluginError(
        gate.quant->cuda->matvec_glu_q8(DeviceData(gate), DeviceData(up), f, gate.cols(),
                                        static_cast<int64_t>(gate.row_bytes) * f, s.ids, pairs,
                                        used, xq, d / 32, &glu, s.gate, f, b.stream()),
        insn.label);
  } else {
    ExpertMatvecs(ctx, insn, gate, s.ids, pairs, used, x, d, s.gate, f, xq);
    ExpertMatvecs(ctx, insn, up, s.ids, pairs, used, x, d, s.up, f, xq);
    CheckLaunch(ctx, insn,
                k.moe_activate(s.gate, s.up, bias[0], bias[1], s.ids, pairs, f,
                               static_cast<int>(p.activation), p.alpha, p.limit, b.stream()));
  }
  if (!grouped) {
    const orcd_q8_x32* hq = decode ? QuantizedInput(ctx, insn, down, s.gate, pairs, f) : nullptr;
    ExpertMatvecs(ctx, insn, down, s.ids, pairs, 1, s.gate, f, s.down, d, hq);
  }
  CheckLaunch(
      ctx, insn,
      k.moe_combine(s.down, bias[2], s.ids, s.weights, ctx.Out(insn, 0), n, used, d, b.stream()));
  // The picks stay on the device: count each (token, pick) as one expert's
  // read, capped at every expert once (exact for one token).
  const uint64_t experts = static_cast<uint64_t>(std::min<int64_t>(pairs, p.n_expert));
  ctx.weight_bytes_read = experts * (ExpertBytes(gate, biased ? insn.weights[3] : nullptr) +
                                     ExpertBytes(up, biased ? insn.weights[4] : nullptr) +
                                     ExpertBytes(down, biased ? insn.weights[5] : nullptr));
}

}  // namespace orcd::engine::cuda
