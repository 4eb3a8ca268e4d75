#include "tools/synth/synth_shapes.h"

#include "orcd/plugin.h"

namespace orcd::synth {
namespace {

// llama_ftype numbers (general.file_type).
constexpr uint32_t kFileTypeF16 = 1;
constexpr uint32_t kFileTypeQ8_0 = 7;
constexpr uint32_t kFileTypeQ4_K_M = 15;

// llama-quantize's use_more_bits(): the first and last eighth of the layers
// and every third one between get more bits (attn_v, ffn_down in Q4_K_M).
bool UseMoreBits(uint32_t layer, uint32_t n_layer) {
  return layer < n_layer / 8 || layer >= 7 * n_layer / 8 ||
         (layer >= n_layer / 8 && (layer - n_layer / 8) % 3 == 2);
}

// K-quants need rows that are a multiple of 256; llama-quantize falls back to
// a legacy type of similar size otherwise (Q4_K -> Q5_0, Q6_K -> Q8_0).
uint32_t WithFallback(uint32_t type, int64_t row) {
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

 private:
  std::vector<TensorSpec>* out_;
};

std::string Blk(uint32_t layer, const char* what) {
  return "blk." + std::to_string(layer) + "." + what;
}

// Qwen2: separate q/k/v with biases, tied LM head (no output.weight).
// `mix(role, layer)` picks each matrix's type.
template <class Mix>
void AddQwen2Tensors(ModelShape& s, Mix mix) {
  TensorList t(&s.tensors);
  const int64_t d = s.n_embd;
  const int64_t kv = static_cast<int64_t>(s.n_embd / s.n_head) * s.n_head_kv;
  t.Matrix("token_embd.weight", d, s.n_vocab, mix("token_embd", 0));
  t.Norm("output_norm.weight", d);
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    t.Norm(Blk(l, "attn_norm.weight"), d);
    t.Matrix(Blk(l, "attn_q.weight"), d, d, mix("attn_q", l));
    t.Bias(Blk(l, "attn_q.bias"), d);
    t.Matrix(Blk(l, "attn_k.weight"), d, kv, mix("attn_k", l));
    t.Bias(Blk(l, "attn_k.bias"), kv);
    t.Matrix(Blk(l, "attn_v.weight"), d, kv, mix("attn_v", l));
    t.Bias(Blk(l, "attn_v.bias"), kv);
    t.Matrix(Blk(l, "attn_output.weight"), d, d, mix("attn_output", l));
    t.Norm(Blk(l, "ffn_norm.weight"), d);
    t.Matrix(Blk(l, "ffn_gate.weight"), d, s.n_ff, mix("ffn_gate", l));
    t.Matrix(Blk(l, "ffn_up.weight"), d, s.n_ff, mix("ffn_up", l));
    t.Matrix(Blk(l, "ffn_down.weight"), s.n_ff, d, mix("ffn_down", l));
  }
}

ModelShape Demo(uint32_t demo_type) {
  ModelShape s;
  s.shape = "demo";
  s.architecture = "qwen2";
  s.name = "orcd-demo-qwen2";
  s.file_type = demo_type == ORCD_TYPE_F16 ? kFileTypeF16 : kFileTypeQ8_0;
  s.context_length = 512;
  s.n_embd = 64;
  s.n_layer = 2;
  s.n_head = 4;
  s.n_head_kv = 2;
  s.n_ff = 128;
  s.n_vocab = 151936;  // the real Qwen2 vocabulary, so text tokenizes
  s.rope_freq_base = 1000000.0f;
  s.needs_vocab_file = true;
  AddQwen2Tensors(s, [demo_type](const char*, uint32_t) { return demo_type; });
  return s;
}

// Qwen2.5-0.5B-Instruct as llama-quantize writes Q4_K_M: rows of 896 are not
// K-quant compatible, so Q4_K becomes Q5_0 and Q6_K becomes Q8_0 there; the
// tied token_embd is treated as the output tensor (Q6_K -> Q8_0).
ModelShape Qwen2_05B() {
  ModelShape s;
  s.shape = "qwen2-0.5b";
  s.architecture = "qwen2";
  s.name = "synthetic Qwen2.5-0.5B-Instruct shape (random weights)";
  s.file_type = kFileTypeQ4_K_M;
  s.context_length = 32768;
  s.n_embd = 896;
  s.n_layer = 24;
  s.n_head = 14;
  s.n_head_kv = 2;
  s.n_ff = 4864;
  s.n_vocab = 151936;
  s.rope_freq_base = 1000000.0f;
  const uint32_t n_layer = s.n_layer;
  AddQwen2Tensors(s, [n_layer](const std::string& role, uint32_t l) -> uint32_t {
    if (role == "token_embd") return ORCD_TYPE_Q6_K;
    if (role == "attn_v" || role == "ffn_down") {
      return UseMoreBits(l, n_layer) ? ORCD_TYPE_Q6_K : ORCD_TYPE_Q4_K;
    }
    return ORCD_TYPE_Q4_K;
  });
  return s;
}

// Phi-3-mini-4k-instruct, Q4_K_M: fused attn_qkv (typed like attn_v) and
// ffn_up (gate rows then up rows), separate output.weight (Q6_K).
ModelShape Phi3Mini() {
  ModelShape s;
  s.shape = "phi3-mini";
  s.architecture = "phi3";
  s.name = "synthetic Phi-3-mini-4k-instruct shape (random weights)";
  s.file_type = kFileTypeQ4_K_M;
  s.context_length = 4096;
  s.n_embd = 3072;
  s.n_layer = 32;
  s.n_head = 32;
  s.n_head_kv = 32;
  s.n_ff = 8192;
  s.n_vocab = 32064;
  s.norm_eps = 1e-5f;
  s.sliding_window = 2047;
  TensorList t(&s.tensors);
  const int64_t d = s.n_embd;
  t.Matrix("token_embd.weight", d, s.n_vocab, ORCD_TYPE_Q4_K);
  t.Norm("output_norm.weight", d);
  t.Matrix("output.weight", d, s.n_vocab, ORCD_TYPE_Q6_K);
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    const uint32_t more = UseMoreBits(l, s.n_layer) ? ORCD_TYPE_Q6_K : ORCD_TYPE_Q4_K;
    t.Norm(Blk(l, "attn_norm.weight"), d);
    t.Matrix(Blk(l, "attn_qkv.weight"), d, 3 * d, more);
    t.Matrix(Blk(l, "attn_output.weight"), d, d, ORCD_TYPE_Q4_K);
    t.Norm(Blk(l, "ffn_norm.weight"), d);
    t.Matrix(Blk(l, "ffn_up.weight"), d, 2 * static_cast<int64_t>(s.n_ff), ORCD_TYPE_Q4_K);
    t.Matrix(Blk(l, "ffn_down.weight"), s.n_ff, d, more);
  }
  return s;
}

}  // namespace

std::optional<ModelShape> MakeShape(const std::string& shape, uint32_t demo_type) {
  if (shape == "demo") return Demo(demo_type);
  if (shape == "qwen2-0.5b") return Qwen2_05B();
  if (shape == "phi3-mini") return Phi3Mini();
  return std::nullopt;
}

const char* ShapeNames() { return "demo | qwen2-0.5b | phi3-mini"; }

}  // namespace orcd::synth
