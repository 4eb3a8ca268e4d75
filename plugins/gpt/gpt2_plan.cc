#include "gpt2_plan.h"

#include <string>

#include "orcd/cpp/decoder_blocks.h"
#include "orcd/cpp/decoder_shape.h"

namespace orcd::gpt {
namespace {

sdk::AttentionBlock Attention(const GptConfig& c, uint32_t layer) {
  const std::string blk = "blk." + std::to_string(layer) + ".";
  sdk::AttentionBlock b = sdk::BasicAttention(c, c.norm_eps, layer);
  b.rope.n_rot = 0;  // learned absolute positions instead of RoPE
  b.norm_bias = blk + "attn_norm.bias";
  b.qkv = blk + "attn_qkv.weight";  // rows Q | K | V
  b.qkv_bias = blk + "attn_qkv.bias";
  b.o_bias = blk + "attn_output.bias";
  return b;
}

sdk::GeluFfnBlock Ffn(const GptConfig& c, uint32_t layer) {
  const std::string blk = "blk." + std::to_string(layer) + ".";
  sdk::GeluFfnBlock b;
  b.norm_eps = c.norm_eps;
  b.norm = blk + "ffn_norm.weight";
  b.norm_bias = blk + "ffn_norm.bias";
  b.up = blk + "ffn_up.weight";
  b.up_bias = blk + "ffn_up.bias";
  b.down = blk + "ffn_down.weight";
  b.down_bias = blk + "ffn_down.bias";
  return b;
}

void EmitPhase(const GptConfig& c, sdk::PlanWriter& w, orcd_plan_phase phase) {
  const int32_t x = w.NewRegister();
  w.Emit(phase, ORCD_OP_EMBEDDING, {ORCD_REG_TOKENS}, {x}, {"token_embd.weight"});
  const int32_t positions = w.NewRegister();
  w.Emit(phase, ORCD_OP_POSITION_EMBEDDING, {}, {positions}, {"position_embd.weight"});
  w.Emit(phase, ORCD_OP_ADD, {x, positions}, {x});
  for (uint32_t layer = 0; layer < c.n_layer; ++layer) {
    sdk::EmitAttentionBlock(w, phase, Attention(c, layer), x);
    sdk::EmitGeluFfnBlock(w, phase, Ffn(c, layer), x);
  }
  sdk::EmitOutputHead(w, phase, x, c, c.norm_eps, "output_norm.bias");
}

}  // namespace

void EmitGpt2Plan(const sdk::ModelReader&, const GptConfig& c, sdk::PlanWriter& w) {
  for (uint32_t layer = 0; layer < c.n_layer; ++layer) w.KvState(layer, c.n_head_kv, c.head_dim, 0);
  EmitPhase(c, w, ORCD_PHASE_PREFILL);
  EmitPhase(c, w, ORCD_PHASE_DECODE);
}

}  // namespace orcd::gpt
