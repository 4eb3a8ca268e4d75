// orcd-plugin-qwen3: the Qwen3 dense family, as a third party would add it
// out of tree against the installed SDK only.
//
// Qwen3 is a pre-norm decoder like Qwen2 with three differences, all read
// from the file: no Q/K/V biases; each attention head's query and key are
// RMS-normalised (attn_q_norm / attn_k_norm, one gain per head dimension,
// shared by all heads) before RoPE; and the heads are
// <arch>.attention.key_length wide, not embedding_length / head_count
// (Qwen3-0.6B: 16 heads of 128 over an embedding of 1024). RoPE pairs
// dimension i with i + n_rot/2 (NeoX), as in llama.cpp's qwen3 graph.
#include <string>

#include "orcd/cpp/arch_plugin.h"
#include "orcd/cpp/decoder_blocks.h"
#include "orcd/cpp/decoder_shape.h"
#include "orcd/cpp/rope_config.h"

namespace {

using orcd::sdk::LayerTensor;

constexpr const char* kArchitectures[] = {"qwen3"};

struct Qwen3Config : orcd::sdk::DecoderShape {
  float norm_eps = 0.0f;
  orcd_op_rope_params rope{};
};

Qwen3Config ReadConfig(const orcd::sdk::ModelReader& m) {
  Qwen3Config c;
  static_cast<orcd::sdk::DecoderShape&>(c) = orcd::sdk::ReadDecoderShape(m);
  c.norm_eps = static_cast<float>(m.RequireArchF64("attention.layer_norm_rms_epsilon"));
  const uint32_t n_rot = orcd::sdk::ReadRopeDims(m, c.head_dim);
  c.rope = orcd::sdk::RopeFromMetadata(m, ORCD_ROPE_NEOX, c.head_dim, n_rot);
  return c;
}

void EmitPhase(const Qwen3Config& c, orcd::sdk::PlanWriter& w, orcd_plan_phase phase) {
  const int32_t x = w.NewRegister();
  w.Emit(phase, ORCD_OP_EMBEDDING, {ORCD_REG_TOKENS}, {x}, {"token_embd.weight"});
  for (uint32_t layer = 0; layer < c.n_layer; ++layer) {
    orcd::sdk::AttentionBlock attention = orcd::sdk::BasicAttention(c, c.norm_eps, layer);
    attention.rope = c.rope;
    attention.q = LayerTensor(layer, "attn_q.weight");
    attention.k = LayerTensor(layer, "attn_k.weight");
    attention.v = LayerTensor(layer, "attn_v.weight");
    // Named, hence required: the host refuses a qwen3 file without them.
    attention.q_norm = LayerTensor(layer, "attn_q_norm.weight");
    attention.k_norm = LayerTensor(layer, "attn_k_norm.weight");
    orcd::sdk::EmitAttentionBlock(w, phase, attention, x);

    orcd::sdk::SwigluFfnBlock ffn;
    ffn.norm_eps = c.norm_eps;
    ffn.norm = LayerTensor(layer, "ffn_norm.weight");
    ffn.gate = LayerTensor(layer, "ffn_gate.weight");
    ffn.up = LayerTensor(layer, "ffn_up.weight");
    ffn.down = LayerTensor(layer, "ffn_down.weight");
    orcd::sdk::EmitSwigluFfnBlock(w, phase, ffn, x);
  }
  orcd::sdk::EmitOutputHead(w, phase, x, c, c.norm_eps);  // tied to token_embd when no output
}

void Compile(const orcd::sdk::ModelReader& model, orcd::sdk::PlanWriter& plan) {
  const Qwen3Config c = ReadConfig(model);
  // Every layer attends over the whole context (no sliding window).
  for (uint32_t layer = 0; layer < c.n_layer; ++layer) {
    plan.KvState(layer, c.n_head_kv, c.head_dim, 0);
  }
  // One instruction stream serves both phases: the host's adapters handle
  // one token or many.
  EmitPhase(c, plan, ORCD_PHASE_PREFILL);
  EmitPhase(c, plan, ORCD_PHASE_DECODE);
}

// The format a chat uses when the model file carries no template the host
// recognises: Qwen3's template is ChatML, with no default system prompt.
constexpr orcd_chat_defaults kChatDefaults[] = {
    {sizeof(orcd_chat_defaults), "qwen3", "chatml", "", 0},
};

}  // namespace

ORCD_ARCH_PLUGIN_WITH_CHAT("example-qwen3", "0.1.0", kArchitectures, 1, Compile, kChatDefaults, 1)
