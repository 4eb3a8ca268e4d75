#include "llama_plan.h"

#include <string>

#include "orcd/cpp/decoder_blocks.h"
#include "orcd/cpp/decoder_shape.h"
#include "orcd/cpp/moe_block.h"

namespace orcd::llama {
namespace {

// The name if the model has that tensor, else "" (absent).
std::string IfPresent(const sdk::ModelReader& m, const std::string& name) {
  return m.HasTensor(name) ? name : std::string();
}

sdk::AttentionBlock Attention(const sdk::ModelReader& m, const LlamaConfig& c, uint32_t layer) {
  const std::string blk = "blk." + std::to_string(layer) + ".";
  sdk::AttentionBlock b = sdk::BasicAttention(c, c.norm_eps, layer);
  b.rope = c.rope;
  if (m.HasTensor(blk + "attn_qkv.weight")) {  // phi3: rows Q | K | V
    b.qkv = blk + "attn_qkv.weight";
    b.qkv_bias = IfPresent(m, blk + "attn_qkv.bias");
  } else {
    b.q = blk + "attn_q.weight";
    b.k = blk + "attn_k.weight";
    b.v = blk + "attn_v.weight";
    b.q_bias = IfPresent(m, blk + "attn_q.bias");  // qwen2
    b.k_bias = IfPresent(m, blk + "attn_k.bias");
    b.v_bias = IfPresent(m, blk + "attn_v.bias");
  }
  b.q_norm = IfPresent(m, blk + "attn_q_norm.weight");
  b.k_norm = IfPresent(m, blk + "attn_k_norm.weight");
  b.rope_freqs = IfPresent(m, "rope_freqs.weight");  // llama 3.1 frequency factors
  b.o_bias = IfPresent(m, blk + "attn_output.bias");
  return b;
}

sdk::SwigluFfnBlock Ffn(const sdk::ModelReader& m, const LlamaConfig& c, uint32_t layer) {
  const std::string blk = "blk." + std::to_string(layer) + ".";
  sdk::SwigluFfnBlock b;
  b.norm_eps = c.norm_eps;
  b.norm = blk + "ffn_norm.weight";
  b.gate = IfPresent(m, blk + "ffn_gate.weight");  // absent in phi3: ffn_up is gate | up
  b.up = blk + "ffn_up.weight";
  b.down = blk + "ffn_down.weight";
  return b;
}

// Routed experts (qwen3moe): softmax over every expert, the top k
// renormalised to sum 1 (llama.cpp's norm_w), SwiGLU experts, no shared one.
sdk::MoeFfnBlock Moe(const LlamaConfig& c, uint32_t layer) {
  sdk::MoeFfnBlock b = sdk::RoutedExperts(layer, "ffn_norm.weight", c.norm_eps, c.experts.n_expert,
                                          c.experts.n_expert_used);
  b.moe.gating = ORCD_MOE_GATING_SOFTMAX;
  b.moe.activation = ORCD_MOE_ACT_SWIGLU;
  b.moe.normalize_weights = 1;
  return b;
}

void EmitPhase(const sdk::ModelReader& m, const LlamaConfig& c, sdk::PlanWriter& w,
               orcd_plan_phase phase) {
  const int32_t x = w.NewRegister();
  w.Emit(phase, ORCD_OP_EMBEDDING, {ORCD_REG_TOKENS}, {x}, {"token_embd.weight"});
  for (uint32_t layer = 0; layer < c.n_layer; ++layer) {
    sdk::EmitAttentionBlock(w, phase, Attention(m, c, layer), x);
    if (c.experts.n_expert > 0) {
      sdk::EmitMoeFfnBlock(w, phase, Moe(c, layer), x);
    } else {
      sdk::EmitSwigluFfnBlock(w, phase, Ffn(m, c, layer), x);
    }
  }
  sdk::EmitOutputHead(w, phase, x, c, c.norm_eps);
}

}  // namespace

void EmitLlamaPlan(const sdk::ModelReader& m, const LlamaConfig& c, sdk::PlanWriter& w) {
  // llama.cpp runs these architectures without a sliding window (it ignores
  // phi3.attention.sliding_window), so every layer keeps the full context.
  for (uint32_t layer = 0; layer < c.n_layer; ++layer) w.KvState(layer, c.n_head_kv, c.head_dim, 0);
  // The same instruction stream serves both phases: the host's adapters
  // handle one token or many.
  EmitPhase(m, c, w, ORCD_PHASE_PREFILL);
  EmitPhase(m, c, w, ORCD_PHASE_DECODE);
}

}  // namespace orcd::llama
