#include "gpt_oss_plan.h"

#include <string>

#include "orcd/cpp/decoder_blocks.h"
#include "orcd/cpp/decoder_shape.h"
#include "orcd/cpp/moe_block.h"

namespace orcd::gpt {
namespace {

// swiglu_oai: g = min(g, 7); u = clamp(u, -7, 7); h = g * sigmoid(1.702 g) * (u + 1).
constexpr float kSwigluAlpha = 1.702f;
constexpr float kSwigluLimit = 7.0f;

sdk::AttentionBlock Attention(const GptConfig& c, uint32_t layer) {
  const std::string blk = "blk." + std::to_string(layer) + ".";
  sdk::AttentionBlock b = sdk::BasicAttention(c, c.norm_eps, layer);
  b.rope = c.rope;
  b.q = blk + "attn_q.weight";
  b.k = blk + "attn_k.weight";
  b.v = blk + "attn_v.weight";
  b.q_bias = blk + "attn_q.bias";
  b.k_bias = blk + "attn_k.bias";
  b.v_bias = blk + "attn_v.bias";
  b.o_bias = blk + "attn_output.bias";
  b.sinks = blk + "attn_sinks.weight";
  return b;
}

sdk::MoeFfnBlock Moe(const GptConfig& c, uint32_t layer) {
  const std::string blk = "blk." + std::to_string(layer) + ".";
  sdk::MoeFfnBlock b = sdk::RoutedExperts(layer, "post_attention_norm.weight", c.norm_eps,
                                          c.n_expert, c.n_expert_used);
  b.router_bias = blk + "ffn_gate_inp.bias";
  b.gate_bias = blk + "ffn_gate_exps.bias";
  b.up_bias = blk + "ffn_up_exps.bias";
  b.down_bias = blk + "ffn_down_exps.bias";
  b.moe.gating = ORCD_MOE_GATING_SOFTMAX_TOPK;
  b.moe.activation = ORCD_MOE_ACT_SWIGLU_OAI;
  b.moe.alpha = kSwigluAlpha;
  b.moe.limit = kSwigluLimit;
  return b;
}

void EmitPhase(const GptConfig& c, sdk::PlanWriter& w, orcd_plan_phase phase) {
  const int32_t x = w.NewRegister();
  w.Emit(phase, ORCD_OP_EMBEDDING, {ORCD_REG_TOKENS}, {x}, {"token_embd.weight"});
  for (uint32_t layer = 0; layer < c.n_layer; ++layer) {
    sdk::EmitAttentionBlock(w, phase, Attention(c, layer), x);
    sdk::EmitMoeFfnBlock(w, phase, Moe(c, layer), x);
  }
  sdk::EmitOutputHead(w, phase, x, c, c.norm_eps);
}

}  // namespace

void EmitGptOssPlan(const sdk::ModelReader&, const GptConfig& c, sdk::PlanWriter& w) {
  // A sliding-window layer's KV state is its window: the host keeps no more.
  for (uint32_t layer = 0; layer < c.n_layer; ++layer) {
    w.KvState(layer, c.n_head_kv, c.head_dim, IsSlidingLayer(c, layer) ? c.sliding_window : 0);
  }
  EmitPhase(c, w, ORCD_PHASE_PREFILL);
  EmitPhase(c, w, ORCD_PHASE_DECODE);
}

}  // namespace orcd::gpt
