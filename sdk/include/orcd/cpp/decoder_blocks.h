// Header-only C++ helper for architecture plugins: the pre-norm decoder
// pieces most transformer families share, emitted as host macro-ops.
//   attention block:  x += O(attention(rope(Q h), rope(K h), V h)),  h = norm(x)
//   gated FFN block:  x += down(act(gate h) * up h),                  h = rms_norm(x)
//                     (act silu: SwiGLU, or gelu: GEGLU)
//   GELU FFN block:   x += down(gelu(up h + b_up)) + b_down,          h = norm(x)
// The attention and gated FFN blocks may also normalise their output before
// the residual add (post_norm: Gemma's "sandwich" norms).
// norm is RMSNorm, or LayerNorm when a norm bias (beta) is named; an
// attention block whose rope.n_rot is 0 has no rotary embedding (models with
// learned absolute positions).
// Weight names are the caller's (GGUF names); empty names mean "absent"
// (no bias, separate instead of fused, ...). Both blocks update the residual
// register x in place and use fresh registers for everything else, so the
// host's liveness analysis can reuse scratch.
#ifndef ORCD_CPP_DECODER_BLOCKS_H_
#define ORCD_CPP_DECODER_BLOCKS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "orcd/cpp/plan_writer.h"
#include "orcd/ops.h"

namespace orcd::sdk {

struct AttentionBlock {
  uint32_t layer = 0;  // KV state this attention uses
  uint32_t n_head = 0;
  uint32_t n_head_kv = 0;
  uint32_t head_dim = 0;
  float norm_eps = 0.0f;
  float scale = 0.0f;  // on q.k
  orcd_op_rope_params rope{};
  std::string norm;           // pre-attention norm weight (gamma)
  std::string norm_bias;      // its beta: LayerNorm when set, else RMSNorm
  std::string qkv, qkv_bias;  // fused Q|K|V (then q/k/v are unused)
  std::string q, q_bias, k, k_bias, v, v_bias;
  std::string q_norm, k_norm;  // per-head RMS norms before RoPE (optional)
  std::string rope_freqs;      // frequency factors (optional)
  std::string o, o_bias;
  std::string sinks;      // attention sinks (optional)
  float softcap = 0.0f;   // on the scaled scores: c tanh(s / c); 0 = off
  std::string post_norm;  // RMS norm of the output before the residual add (optional)
};

struct GatedFfnBlock {
  float norm_eps = 0.0f;
  std::string norm;
  std::string gate;  // empty: `up` holds gate|up fused (gate rows first)
  std::string up;
  std::string down;
  orcd_opcode activation = ORCD_OP_SWIGLU;  // or ORCD_OP_GEGLU (ABI 1.6)
  std::string post_norm;  // RMS norm of the output before the residual add (optional)
};
using SwigluFfnBlock = GatedFfnBlock;

inline std::vector<std::string> WeightWithBias(const std::string& w, const std::string& bias) {
  return bias.empty() ? std::vector<std::string>{w} : std::vector<std::string>{w, bias};
}

inline std::vector<std::string> Optional(const std::string& w) {
  return w.empty() ? std::vector<std::string>{} : std::vector<std::string>{w};
}

// h = rms_norm(x) * gamma in a fresh register.
inline int32_t EmitRmsNorm(PlanWriter& w, orcd_plan_phase phase, int32_t x,
                           const std::string& gamma, float eps) {
  const int32_t h = w.NewRegister();
  orcd_op_norm_params p{};
  p.eps = eps;
  w.Emit(phase, ORCD_OP_RMS_NORM, {x}, {h}, {gamma}, p);
  return h;
}

// h = layer_norm(x) * gamma + beta in a fresh register.
inline int32_t EmitLayerNorm(PlanWriter& w, orcd_plan_phase phase, int32_t x,
                             const std::string& gamma, const std::string& beta, float eps) {
  const int32_t h = w.NewRegister();
  orcd_op_norm_params p{};
  p.eps = eps;
  w.Emit(phase, ORCD_OP_LAYER_NORM, {x}, {h}, {gamma, beta}, p);
  return h;
}

// RMSNorm, or LayerNorm when `beta` is named.
inline int32_t EmitPreNorm(PlanWriter& w, orcd_plan_phase phase, int32_t x,
                           const std::string& gamma, const std::string& beta, float eps) {
  return beta.empty() ? EmitRmsNorm(w, phase, x, gamma, eps)
                      : EmitLayerNorm(w, phase, x, gamma, beta, eps);
}

// x += y, or x += rms_norm(y) * post_norm when post_norm is named.
inline void EmitResidualAdd(PlanWriter& w, orcd_plan_phase phase, int32_t x, int32_t y,
                            const std::string& post_norm, float eps) {
  if (!post_norm.empty()) {
    orcd_op_norm_params p{};
    p.eps = eps;
    w.Emit(phase, ORCD_OP_RMS_NORM, {y}, {y}, {post_norm}, p);
  }
  w.Emit(phase, ORCD_OP_ADD, {x, y}, {x});
}

inline void EmitAttentionBlock(PlanWriter& w, orcd_plan_phase phase, const AttentionBlock& b,
                               int32_t x) {
  const int32_t h = EmitPreNorm(w, phase, x, b.norm, b.norm_bias, b.norm_eps);
  const int32_t q = w.NewRegister(), k = w.NewRegister(), v = w.NewRegister();
  if (!b.qkv.empty()) {
    orcd_op_matmul_params split{};
    split.output_rows[0] = b.n_head * b.head_dim;
    split.output_rows[1] = b.n_head_kv * b.head_dim;
    split.output_rows[2] = b.n_head_kv * b.head_dim;
    w.Emit(phase, ORCD_OP_MATMUL, {h}, {q, k, v}, WeightWithBias(b.qkv, b.qkv_bias), split);
  } else {
    w.Emit(phase, ORCD_OP_MATMUL, {h}, {q}, WeightWithBias(b.q, b.q_bias));
    w.Emit(phase, ORCD_OP_MATMUL, {h}, {k}, WeightWithBias(b.k, b.k_bias));
    w.Emit(phase, ORCD_OP_MATMUL, {h}, {v}, WeightWithBias(b.v, b.v_bias));
  }
  for (const auto& [reg, norm] : {std::pair<int32_t, std::string>{q, b.q_norm}, {k, b.k_norm}}) {
    if (norm.empty()) continue;
    orcd_op_norm_params p{};
    p.eps = b.norm_eps;
    p.group_size = b.head_dim;
    w.Emit(phase, ORCD_OP_RMS_NORM, {reg}, {reg}, {norm}, p);
  }
  if (b.rope.n_rot > 0) {
    w.Emit(phase, ORCD_OP_ROPE, {q}, {q}, Optional(b.rope_freqs), b.rope);
    w.Emit(phase, ORCD_OP_ROPE, {k}, {k}, Optional(b.rope_freqs), b.rope);
  }
  orcd_op_attention_params ap{};
  ap.kv_layer = b.layer;
  ap.n_head = b.n_head;
  ap.n_head_kv = b.n_head_kv;
  ap.head_dim = b.head_dim;
  ap.scale = b.scale;
  ap.softcap = b.softcap;
  const int32_t a = w.NewRegister();
  w.Emit(phase, ORCD_OP_ATTENTION, {q, k, v}, {a}, Optional(b.sinks), ap);
  const int32_t o = w.NewRegister();
  w.Emit(phase, ORCD_OP_MATMUL, {a}, {o}, WeightWithBias(b.o, b.o_bias));
  EmitResidualAdd(w, phase, x, o, b.post_norm, b.norm_eps);
}

inline void EmitGatedFfnBlock(PlanWriter& w, orcd_plan_phase phase, const GatedFfnBlock& b,
                              int32_t x) {
  const int32_t h = EmitRmsNorm(w, phase, x, b.norm, b.norm_eps);
  const int32_t act = w.NewRegister();
  if (b.gate.empty()) {
    const int32_t gate_up = w.NewRegister();
    w.Emit(phase, ORCD_OP_MATMUL, {h}, {gate_up}, {b.up});
    w.Emit(phase, b.activation, {gate_up}, {act});
  } else {
    const int32_t gate = w.NewRegister(), up = w.NewRegister();
    w.Emit(phase, ORCD_OP_MATMUL, {h}, {gate}, {b.gate});
    w.Emit(phase, ORCD_OP_MATMUL, {h}, {up}, {b.up});
    w.Emit(phase, b.activation, {gate, up}, {act});
  }
  const int32_t down = w.NewRegister();
  w.Emit(phase, ORCD_OP_MATMUL, {act}, {down}, {b.down});
  EmitResidualAdd(w, phase, x, down, b.post_norm, b.norm_eps);
}

inline void EmitSwigluFfnBlock(PlanWriter& w, orcd_plan_phase phase, const SwigluFfnBlock& b,
                               int32_t x) {
  EmitGatedFfnBlock(w, phase, b, x);
}

struct GeluFfnBlock {
  float norm_eps = 0.0f;
  std::string norm, norm_bias;  // LayerNorm when norm_bias is set
  std::string up, up_bias;
  std::string down, down_bias;
};

inline void EmitGeluFfnBlock(PlanWriter& w, orcd_plan_phase phase, const GeluFfnBlock& b,
                             int32_t x) {
  const int32_t h = EmitPreNorm(w, phase, x, b.norm, b.norm_bias, b.norm_eps);
  const int32_t up = w.NewRegister();
  w.Emit(phase, ORCD_OP_MATMUL, {h}, {up}, WeightWithBias(b.up, b.up_bias));
  w.Emit(phase, ORCD_OP_GELU, {up}, {up});
  const int32_t down = w.NewRegister();
  w.Emit(phase, ORCD_OP_MATMUL, {up}, {down}, WeightWithBias(b.down, b.down_bias));
  w.Emit(phase, ORCD_OP_ADD, {x, down}, {x});
}

}  // namespace orcd::sdk

#endif  // ORCD_CPP_DECODER_BLOCKS_H_
