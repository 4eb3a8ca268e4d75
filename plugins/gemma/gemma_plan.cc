#include "gemma_plan.h"

#include "orcd/cpp/decoder_blocks.h"
#include "orcd/cpp/decoder_shape.h"

namespace orcd::gemma {
namespace {

using sdk::LayerTensor;

sdk::AttentionBlock Attention(const GemmaConfig& c, uint32_t layer) {
  sdk::AttentionBlock b = sdk::BasicAttention(c, c.norm_eps, layer);
  b.scale = c.attention_scale;
  b.softcap = c.attention_softcap;
  b.rope = c.IsLocalLayer(layer) ? c.rope_local : c.rope_global;
  b.q = LayerTensor(layer, "attn_q.weight");
  b.k = LayerTensor(layer, "attn_k.weight");
  b.v = LayerTensor(layer, "attn_v.weight");
  if (c.qk_norm) {
    b.q_norm = LayerTensor(layer, "attn_q_norm.weight");
    b.k_norm = LayerTensor(layer, "attn_k_norm.weight");
  }
  b.post_norm = LayerTensor(layer, "post_attention_norm.weight");
  return b;
}

sdk::GatedFfnBlock Ffn(const GemmaConfig& c, uint32_t layer) {
  sdk::GatedFfnBlock b;
  b.norm_eps = c.norm_eps;
  b.norm = LayerTensor(layer, "ffn_norm.weight");
  b.gate = LayerTensor(layer, "ffn_gate.weight");
  b.up = LayerTensor(layer, "ffn_up.weight");
  b.down = LayerTensor(layer, "ffn_down.weight");
  b.activation = ORCD_OP_GEGLU;
  b.post_norm = LayerTensor(layer, "post_ffw_norm.weight");
  return b;
}

void EmitPhase(const GemmaConfig& c, sdk::PlanWriter& w, orcd_plan_phase phase) {
  const int32_t x = w.NewRegister();
  orcd_op_embedding_params embedding{};
  embedding.scale = c.embedding_scale;
  w.Emit(phase, ORCD_OP_EMBEDDING, {ORCD_REG_TOKENS}, {x}, {"token_embd.weight"}, embedding);
  for (uint32_t layer = 0; layer < c.n_layer; ++layer) {
    sdk::EmitAttentionBlock(w, phase, Attention(c, layer), x);
    sdk::EmitGatedFfnBlock(w, phase, Ffn(c, layer), x);
  }
  sdk::EmitOutputHead(w, phase, x, c, c.norm_eps, "", c.final_softcap);
}

}  // namespace

void EmitGemmaPlan(const GemmaConfig& c, sdk::PlanWriter& w) {
  // A local layer's KV state is its window: the host keeps no more.
  for (uint32_t layer = 0; layer < c.n_layer; ++layer) {
    w.KvState(layer, c.n_head_kv, c.head_dim, c.IsLocalLayer(layer) ? c.sliding_window : 0);
  }
  EmitPhase(c, w, ORCD_PHASE_PREFILL);
  EmitPhase(c, w, ORCD_PHASE_DECODE);
}

}  // namespace orcd::gemma
