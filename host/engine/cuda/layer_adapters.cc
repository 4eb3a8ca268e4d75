// ADD, MUL, SWIGLU, GELU, RMS_NORM, LAYER_NORM, ROPE and ATTENTION on the
// device, and the lowered ADD_RMS_NORM, ROPE_FUSED, SWIGLU_Q8 and
// ATTENTION_FUSED (lowered_ops.h):
// argument marshalling around the backend's kernels (kernels/).
#include "host/engine/cuda/cuda_adapters.h"
#include "host/engine/lowered_ops.h"
#include "host/engine/rope_yarn.h"

namespace orcd::engine::cuda {

void RunAdd(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  CheckLaunch(ctx, insn,
              b.kernels().add(ctx.In(insn, 0), ctx.In(insn, 1), ctx.Out(insn, 0),
                              ctx.n_tokens * insn.out[0].width, b.stream()));
}

void RunMul(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  CheckLaunch(ctx, insn,
              b.kernels().mul(ctx.In(insn, 0), ctx.In(insn, 1), ctx.Out(insn, 0),
                              ctx.n_tokens * insn.out[0].width, b.stream()));
}

namespace {

// Where a lowered producer rounds its one-token output `width` wide for the
// MATMUL after it (lowering.h), or null: the MATMUL then rounds it itself.
// Null also forgets what the scratch holds: the output may take the slot of
// a register rounded earlier, and the MATMUL must not reuse that rounding.
orcd_q8_x32* ProducedQ8(ExecContext& ctx, bool lowered_to_round, int64_t width) {
  CudaBackend& b = Backend(ctx);
  const bool fits = width % 32 == 0 && width / 32 <= b.q8_capacity();
  if (lowered_to_round && ctx.n_tokens == 1 && b.q8_activations_on() && fits)
    return b.q8_activations();
  b.set_q8_source({});
  return nullptr;
}

}  // namespace

// SWIGLU, SWIGLU_Q8 and GEGLU.
void RunSwiglu(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  const int64_t f = insn.out[0].width;
  const bool fused = insn.in.size() == 1;  // [gate | up] in one register
  const float* gate = ctx.In(insn, 0);
  const float* up = fused ? gate + f : ctx.In(insn, 1);
  if (orcd_q8_x32* q8 = ProducedQ8(ctx, insn.opcode == kOpSwigluQ8, f)) {
    CheckLaunch(ctx, insn, b.kernels().swiglu_q8(gate, up, ctx.Out(insn, 0), q8, f, b.stream()));
    b.set_q8_source({ctx.Out(insn, 0), 1, f});
    return;
  }
  CheckLaunch(
      ctx, insn,
      b.kernels().glu(gate, up, fused ? 2 * f : f, ctx.Out(insn, 0), f, ctx.n_tokens,
                      insn.opcode == ORCD_OP_GEGLU ? ORCD_MOE_ACT_GEGLU : ORCD_MOE_ACT_SWIGLU,
                      b.stream()));
}

void RunGelu(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  CheckLaunch(ctx, insn,
              b.kernels().gelu(ctx.In(insn, 0), ctx.Out(insn, 0), ctx.n_tokens * insn.out[0].width,
                               b.stream()));
}

void RunRmsNorm(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  const auto p = insn.ParamsAs<orcd_op_norm_params>();
  const int64_t width = insn.out[0].width;
  const int64_t group = p.group_size == 0 ? width : p.group_size;
  const float* gamma = insn.weights.empty() ? nullptr : DeviceFloats(insn.weights[0]);
  CheckLaunch(ctx, insn,
              b.kernels().rms_norm(ctx.In(insn, 0), gamma, ctx.Out(insn, 0),
                                   ctx.n_tokens * width / group, group, p.eps, b.stream()));
}

void RunAddRmsNorm(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  const auto p = insn.ParamsAs<LoweredNormParams>();
  const int64_t width = insn.out[0].width;
  const float* gamma = insn.weights.empty() ? nullptr : DeviceFloats(insn.weights[0]);
  orcd_q8_x32* q8 = ProducedQ8(ctx, p.quantize_output != 0, width);
  CheckLaunch(
      ctx, insn,
      b.kernels().add_rms_norm(ctx.In(insn, 0), ctx.In(insn, 1), ctx.Out(insn, 0), gamma,
                               ctx.Out(insn, 1), q8, ctx.n_tokens, width, p.norm.eps, b.stream()));
  if (q8 != nullptr) b.set_q8_source({ctx.Out(insn, 1), 1, width});
}

void RunLayerNorm(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  const float eps = insn.ParamsAs<orcd_op_norm_params>().eps;
  const bool affine = insn.weights.size() == 2;
  CheckLaunch(
      ctx, insn,
      b.kernels().layer_norm(ctx.In(insn, 0), affine ? DeviceFloats(insn.weights[0]) : nullptr,
                             affine ? DeviceFloats(insn.weights[1]) : nullptr, ctx.Out(insn, 0),
                             ctx.n_tokens, insn.out[0].width, eps, b.stream()));
}

namespace {

// The parameters' part of a ROPE launch; targets are filled by the caller.
RopeArgs RopeLaunch(CudaBackend& b, ExecContext& ctx, orcd_op_rope_params p,
                    const float* freq_factors) {
  if (p.attn_factor == 0.0f) p.attn_factor = 1.0f;  // a zeroed field means "none"
  const YarnDims dims = YarnCorrDims(p);
  RopeArgs a{};
  a.freq_factors = freq_factors;
  a.n_tokens = ctx.n_tokens;
  a.head_dim = p.head_dim;
  a.n_rot = p.n_rot;
  a.neox = p.mode == ORCD_ROPE_NEOX;
  a.theta_scale = RopeThetaScale(p);  // as the CPU adapter, in the host's libm
  a.mscale = RopeMagnitude(p);
  a.freq_scale = p.freq_scale;
  a.ext_factor = p.ext_factor;
  a.yarn_low = dims.low;
  a.yarn_high = dims.high;
  a.step = b.step();
  return a;
}

}  // namespace

void RunRope(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  const auto p = insn.ParamsAs<orcd_op_rope_params>();
  RopeArgs a =
      RopeLaunch(b, ctx, p, insn.weights.empty() ? nullptr : DeviceFloats(insn.weights[0]));
  a.n_targets = 1;
  a.target[0] = {ctx.In(insn, 0), ctx.Out(insn, 0), nullptr, insn.out[0].width / p.head_dim};
  CheckLaunch(ctx, insn, b.kernels().rope(a, b.stream()));
}

void RunRopeFused(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  const auto p = insn.ParamsAs<LoweredRopeParams>();
  size_t w = 0;
  const float* freq = p.has_freq_factors ? DeviceFloats(insn.weights[w++]) : nullptr;
  RopeArgs a = RopeLaunch(b, ctx, p.rope, freq);
  a.n_targets = static_cast<int>(insn.in.size());
  for (size_t i = 0; i < insn.in.size(); ++i) {
    const float* bias = p.has_bias[i] ? DeviceFloats(insn.weights[w++]) : nullptr;
    a.target[i] = {ctx.In(insn, i), ctx.Out(insn, i), bias, insn.out[i].width / p.rope.head_dim};
  }
  CheckLaunch(ctx, insn, b.kernels().rope(a, b.stream()));
}

void RunAttention(const BoundInstruction& insn, ExecContext& ctx) {
  CudaBackend& b = Backend(ctx);
  const auto p = insn.ParamsAs<orcd_op_attention_params>();
  const KvCache::Layer& layer = ctx.kv->layer(insn.kv_index);
  AttentionArgs a{};
  a.q = ctx.In(insn, 0);
  a.k_new = ctx.In(insn, 1);
  a.v_new = ctx.In(insn, 2);
  a.o = ctx.Out(insn, 0);
  a.k_cache = layer.k;
  a.v_cache = layer.v;
  a.f16 = ctx.kv->type() == KvType::kF16;
  a.q8_kv = ctx.kv->type() == KvType::kQ8_0;
  a.ring = layer.ring;
  a.capacity = layer.capacity;
  a.block_tokens = layer.block_tokens;
  a.window = layer.desc.sliding_window;
  a.n_tokens = ctx.n_tokens;
  a.n_head = p.n_head;
  a.n_head_kv = p.n_head_kv;
  a.head_dim = p.head_dim;
  a.scale = p.scale;
  a.softcap = p.softcap;
  a.step = b.step();
  if (insn.opcode == kOpAttentionFused) {  // lowered: sinks?, V's bias?, rounding
    const auto lp = insn.ParamsAs<LoweredAttentionParams>();
    a.sinks = lp.has_sinks ? DeviceFloats(insn.weights[0]) : nullptr;
    a.v_bias = lp.has_v_bias ? DeviceFloats(insn.weights.back()) : nullptr;
    a.q8 = ProducedQ8(ctx, lp.round_output != 0 && p.head_dim % 32 == 0, insn.out[0].width);
  } else {
    a.sinks = insn.weights.empty() ? nullptr : DeviceFloats(insn.weights[0]);
  }
  // Each kind run of the step in launches of its own (a mixed step: the
  // decoding sequences' rows split-KV, a prompt chunk's rows in tiles). A row
  // attends only its own sequence, whose rows are all of one kind
  // (Engine::BindDeviceStep), so the runs' cache stores touch what no other
  // run reads.
  ForEachKindRun(ctx, [&](int64_t t0, int64_t t1, bool generated) {
    AttentionArgs run = a;
    run.row0 = t0;
    run.n_tokens = t1 - t0;
    if (generated && b.attention_partial() != nullptr) {
      run.kv_splits = KvSplits(layer.capacity);
      run.partial = b.attention_partial();
    }
    CheckLaunch(ctx, insn, b.kernels().attention(run, b.stream()));
  });
  if (a.q8 != nullptr) b.set_q8_source({a.o, 1, insn.out[0].width});
}

}  // namespace orcd::engine::cuda
