// Building blocks of orcd-synth's shapes: llama_ftype numbers, the tensor
// list in llama.cpp's names, and llama-quantize's choices of type.
#ifndef ORCD_TOOLS_SYNTH_SHAPE_BUILDER_H_
#define ORCD_TOOLS_SYNTH_SHAPE_BUILDER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "orcd/plugin.h"
#include "tools/synth/synth_shapes.h"

namespace orcd::synth {

// llama_ftype numbers (general.file_type).
inline constexpr uint32_t kFileTypeF16 = 1;
inline constexpr uint32_t kFileTypeQ8_0 = 7;
inline constexpr uint32_t kFileTypeQ4_K_M = 15;
inline constexpr uint32_t kFileTypeMxfp4Moe = 38;

// llama-quantize's use_more_bits(): the first and last eighth of the layers
// and every third one between get more bits (attn_v, ffn_down in Q4_K_M).
inline bool UseMoreBits(uint32_t layer, uint32_t n_layer) {
  return layer < n_layer / 8 || layer >= 7 * n_layer / 8 ||
         (layer >= n_layer / 8 && (layer - n_layer / 8) % 3 == 2);
}

// K-quants need rows that are a multiple of 256; llama-quantize falls back to
// a legacy type of similar size otherwise (Q4_K -> Q5_0, Q6_K -> Q8_0).
inline uint32_t WithFallback(uint32_t type, int64_t row) {
  if (row % 256 == 0) return type;
  if (type == ORCD_TYPE_Q4_K || type == ORCD_TYPE_Q5_K) return ORCD_TYPE_Q5_0;
  if (type == ORCD_TYPE_Q6_K) return ORCD_TYPE_Q8_0;
  return type;
}

class TensorList {
 public:
  explicit TensorList(std::vector<TensorSpec>* out) : out_(out) {}
  void Matrix(const std::string& name, int64_t cols, int64_t rows, uint32_t type) {
    out_->push_back({name, {cols, rows}, WithFallback(type, cols), Fill::kMatrix});
  }
  void Norm(const std::string& name, int64_t n) {
    out_->push_back({name, {n}, ORCD_TYPE_F32, Fill::kNorm});
  }
  void Bias(const std::string& name, int64_t n) {
    out_->push_back({name, {n}, ORCD_TYPE_F32, Fill::kBias});
  }
  // n_expert matrices of rows x cols stacked (ggml ne = {cols, rows, n}).
  void Experts(const std::string& name, int64_t cols, int64_t rows, int64_t n, uint32_t type) {
    out_->push_back({name, {cols, rows, n}, type, Fill::kMatrix});
  }
  // One bias of `rows` per expert.
  void ExpertBiases(const std::string& name, int64_t rows, int64_t n) {
    out_->push_back({name, {rows, n}, ORCD_TYPE_F32, Fill::kBias});
  }

 private:
  std::vector<TensorSpec>* out_;
};

inline std::string Blk(uint32_t layer, const char* what) {
  return "blk." + std::to_string(layer) + "." + what;
}

// What a pre-norm decoder's layers hold besides separate q/k/v, the output
// projection and the norms.
struct DecoderLayout {
  bool qkv_bias = false;    // attn_q/k/v.bias, each after its matrix (qwen2)
  bool qk_norm = false;     // attn_q_norm / attn_k_norm [head_dim] (qwen3, gemma3)
  bool post_norms = false;  // post_attention_norm, post_ffw_norm (gemma)
  bool output = false;      // an output.weight (else the head is tied to token_embd)
};

// The tensors of a decoder in llama.cpp's names: a gated FFN (gate, up,
// down), or routed experts (router, *_exps) when s.n_expert > 0.
// `mix(role, layer)` picks each matrix's type; role "output" is the LM head
// (or the tied token_embd).
template <class Mix>
void AddDecoderTensors(ModelShape& s, const DecoderLayout& layout, Mix mix) {
  TensorList t(&s.tensors);
  const int64_t d = s.n_embd;
  const int64_t hd = s.head_dim > 0 ? s.head_dim : s.n_embd / s.n_head;
  const int64_t q = hd * s.n_head, kv = hd * s.n_head_kv;
  t.Matrix("token_embd.weight", d, s.n_vocab, mix(layout.output ? "token_embd" : "output", 0));
  t.Norm("output_norm.weight", d);
  if (layout.output) t.Matrix("output.weight", d, s.n_vocab, mix("output", 0));
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    t.Norm(Blk(l, "attn_norm.weight"), d);
    t.Matrix(Blk(l, "attn_q.weight"), d, q, mix("attn_q", l));
    if (layout.qkv_bias) t.Bias(Blk(l, "attn_q.bias"), q);
    t.Matrix(Blk(l, "attn_k.weight"), d, kv, mix("attn_k", l));
    if (layout.qkv_bias) t.Bias(Blk(l, "attn_k.bias"), kv);
    t.Matrix(Blk(l, "attn_v.weight"), d, kv, mix("attn_v", l));
    if (layout.qkv_bias) t.Bias(Blk(l, "attn_v.bias"), kv);
    if (layout.qk_norm) {
      t.Norm(Blk(l, "attn_q_norm.weight"), hd);
      t.Norm(Blk(l, "attn_k_norm.weight"), hd);
    }
    t.Matrix(Blk(l, "attn_output.weight"), q, d, mix("attn_output", l));
    if (layout.post_norms) t.Norm(Blk(l, "post_attention_norm.weight"), d);
    t.Norm(Blk(l, "ffn_norm.weight"), d);
    if (s.n_expert > 0) {
      const int64_t f = s.n_ff_exp > 0 ? s.n_ff_exp : s.n_ff;
      t.Matrix(Blk(l, "ffn_gate_inp.weight"), d, s.n_expert, ORCD_TYPE_F32);
      t.Experts(Blk(l, "ffn_gate_exps.weight"), d, f, s.n_expert, mix("ffn_gate", l));
      t.Experts(Blk(l, "ffn_up_exps.weight"), d, f, s.n_expert, mix("ffn_up", l));
      t.Experts(Blk(l, "ffn_down_exps.weight"), f, d, s.n_expert, mix("ffn_down", l));
    } else {
      t.Matrix(Blk(l, "ffn_gate.weight"), d, s.n_ff, mix("ffn_gate", l));
      t.Matrix(Blk(l, "ffn_up.weight"), d, s.n_ff, mix("ffn_up", l));
      t.Matrix(Blk(l, "ffn_down.weight"), s.n_ff, d, mix("ffn_down", l));
    }
    if (layout.post_norms) t.Norm(Blk(l, "post_ffw_norm.weight"), d);
  }
}

// llama-quantize's Q4_K_M mix for an n_layer model: the LM head (and a tied
// token_embd) Q6_K, attn_v and ffn_down Q6_K where UseMoreBits, the rest Q4_K.
inline auto Q4KMMix(uint32_t n_layer) {
  return [n_layer](const std::string& role, uint32_t l) -> uint32_t {
    if (role == "output") return ORCD_TYPE_Q6_K;
    if (role == "attn_v" || role == "ffn_down") {
      return UseMoreBits(l, n_layer) ? ORCD_TYPE_Q6_K : ORCD_TYPE_Q4_K;
    }
    return ORCD_TYPE_Q4_K;
  };
}

// The real-model shapes (real_model_shapes.cc); nullopt for another name.
std::optional<ModelShape> MakeRealModelShape(const std::string& shape);

}  // namespace orcd::synth

#endif  // ORCD_TOOLS_SYNTH_SHAPE_BUILDER_H_
