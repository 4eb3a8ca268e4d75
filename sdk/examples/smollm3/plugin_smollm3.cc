// orcd-plugin-smollm3: the SmolLM3 family (Hugging Face's SmolLM3-3B), as a
// third party would add it out of tree against the installed SDK only.
//
// SmolLM3 is a Llama-style pre-norm decoder (grouped-query attention, no
// biases, SwiGLU, tied LM head) with one difference, read from no key but
// fixed by the family: every fourth layer has no rotary embedding ("NoPE":
// layers 3, 7, 11, ... attend by content alone), as llama.cpp's smollm3
// graph (n_no_rope_layer_step 4). The converter permutes Q and K for
// llama's RoPE pairing (dimension 2i with 2i + 1).
#include <string>

#include "orcd/cpp/arch_plugin.h"
#include "orcd/cpp/decoder_blocks.h"
#include "orcd/cpp/decoder_shape.h"
#include "orcd/cpp/rope_config.h"

namespace {

using orcd::sdk::LayerTensor;

constexpr const char* kArchitectures[] = {"smollm3"};
constexpr uint32_t kNoRopeLayerStep = 4;

struct SmolLm3Config : orcd::sdk::DecoderShape {
  float norm_eps = 0.0f;
  orcd_op_rope_params rope{};
};

SmolLm3Config ReadConfig(const orcd::sdk::ModelReader& m) {
  SmolLm3Config c;
  static_cast<orcd::sdk::DecoderShape&>(c) = orcd::sdk::ReadDecoderShape(m);
  c.norm_eps = static_cast<float>(m.RequireArchF64("attention.layer_norm_rms_epsilon"));
  const uint32_t n_rot = orcd::sdk::ReadRopeDims(m, c.head_dim);
  c.rope = orcd::sdk::RopeFromMetadata(m, ORCD_ROPE_NORMAL, c.head_dim, n_rot);
  return c;
}

void EmitPhase(const SmolLm3Config& c, orcd::sdk::PlanWriter& w, orcd_plan_phase phase) {
  const int32_t x = w.NewRegister();
  w.Emit(phase, ORCD_OP_EMBEDDING, {ORCD_REG_TOKENS}, {x}, {"token_embd.weight"});
  for (uint32_t layer = 0; layer < c.n_layer; ++layer) {
    orcd::sdk::AttentionBlock attention = orcd::sdk::BasicAttention(c, c.norm_eps, layer);
    // n_rot 0: the block emits no ROPE for this layer.
    if ((layer + 1) % kNoRopeLayerStep != 0) attention.rope = c.rope;
    attention.q = LayerTensor(layer, "attn_q.weight");
    attention.k = LayerTensor(layer, "attn_k.weight");
    attention.v = LayerTensor(layer, "attn_v.weight");
    orcd::sdk::EmitAttentionBlock(w, phase, attention, x);

    orcd::sdk::GatedFfnBlock ffn;
    ffn.norm_eps = c.norm_eps;
    ffn.norm = LayerTensor(layer, "ffn_norm.weight");
    ffn.gate = LayerTensor(layer, "ffn_gate.weight");
    ffn.up = LayerTensor(layer, "ffn_up.weight");
    ffn.down = LayerTensor(layer, "ffn_down.weight");
    orcd::sdk::EmitGatedFfnBlock(w, phase, ffn, x);
  }
  orcd::sdk::EmitOutputHead(w, phase, x, c, c.norm_eps);  // tied to token_embd when no output
}

void Compile(const orcd::sdk::ModelReader& model, orcd::sdk::PlanWriter& plan) {
  const SmolLm3Config c = ReadConfig(model);
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
// recognises: SmolLM3's template is ChatML.
constexpr orcd_chat_defaults kChatDefaults[] = {
    {sizeof(orcd_chat_defaults), "smollm3", "chatml", "", 0},
};

}  // namespace

ORCD_ARCH_PLUGIN_WITH_CHAT("example-smollm3", "0.1.0", kArchitectures, 1, Compile, kChatDefaults, 1)
