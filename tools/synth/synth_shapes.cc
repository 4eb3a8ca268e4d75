#include "tools/synth/synth_shapes.h"

#include "orcd/plugin.h"

namespace orcd::synth {
namespace {

// llama_ftype numbers (general.file_type).
constexpr uint32_t kFileTypeF16 = 1;
constexpr uint32_t kFileTypeQ8_0 = 7;
constexpr uint32_t kFileTypeQ4_K_M = 15;
constexpr uint32_t kFileTypeMxfp4Moe = 38;

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

// A tiny qwen3 (served by no bundled plugin: sdk/examples/qwen3 is the
// out-of-tree one) with the family's traits: per-head q/k norm gains, no
// biases, heads wider than embedding / heads (4 x 32 over 64), tied head.
ModelShape Qwen3Tiny(uint32_t type) {
  ModelShape s;
  s.shape = "qwen3-tiny";
  s.architecture = "qwen3";
  s.name = "orcd-qwen3-tiny";
  s.file_type = type == ORCD_TYPE_F16 ? kFileTypeF16 : kFileTypeQ8_0;
  s.context_length = 2048;
  s.n_embd = 64;
  s.n_layer = 2;
  s.n_head = 4;
  s.n_head_kv = 2;
  s.head_dim = 32;
  s.n_ff = 128;
  s.n_vocab = 151936;  // Qwen3 keeps Qwen2's vocabulary
  s.rope_freq_base = 1000000.0f;
  s.needs_vocab_file = true;
  TensorList t(&s.tensors);
  const int64_t d = s.n_embd, q = int64_t{s.n_head} * s.head_dim;
  const int64_t kv = int64_t{s.n_head_kv} * s.head_dim;
  t.Matrix("token_embd.weight", d, s.n_vocab, type);
  t.Norm("output_norm.weight", d);
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    t.Norm(Blk(l, "attn_norm.weight"), d);
    t.Matrix(Blk(l, "attn_q.weight"), d, q, type);
    t.Norm(Blk(l, "attn_q_norm.weight"), s.head_dim);
    t.Matrix(Blk(l, "attn_k.weight"), d, kv, type);
    t.Norm(Blk(l, "attn_k_norm.weight"), s.head_dim);
    t.Matrix(Blk(l, "attn_v.weight"), d, kv, type);
    t.Matrix(Blk(l, "attn_output.weight"), q, d, type);
    t.Norm(Blk(l, "ffn_norm.weight"), d);
    t.Matrix(Blk(l, "ffn_gate.weight"), d, s.n_ff, type);
    t.Matrix(Blk(l, "ffn_up.weight"), d, s.n_ff, type);
    t.Matrix(Blk(l, "ffn_down.weight"), s.n_ff, d, type);
  }
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
  s.vocab_file = "ggml-vocab-phi-3.gguf";
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

// gpt-oss-20b as ggml-org publishes it (MXFP4 MoE, general.file_type 38):
// expert matrices MXFP4; token_embd, output and the attention projections
// Q8_0; norms, biases, sinks and the router F32 (289 F32, 98 Q8_0, 72 MXFP4
// tensors, 11.27 GiB). Even layers attend over a 128-token window.
ModelShape GptOss20B() {
  ModelShape s;
  s.shape = "gpt-oss-20b";
  s.architecture = "gpt-oss";
  s.name = "synthetic gpt-oss-20b shape (random weights)";
  s.file_type = kFileTypeMxfp4Moe;
  s.context_length = 131072;
  s.n_embd = 2880;
  s.n_layer = 24;
  s.n_head = 64;
  s.n_head_kv = 8;
  s.head_dim = 64;
  s.n_ff = 2880;
  s.n_vocab = 201088;
  s.rope_freq_base = 150000.0f;
  s.norm_eps = 1e-5f;
  s.sliding_window = 128;
  s.n_expert = 32;
  s.n_expert_used = 4;
  s.yarn_factor = 32.0f;
  s.yarn_original_context = 4096;
  s.vocab_file = "ggml-vocab-gpt-oss.gguf";
  TensorList t(&s.tensors);
  const int64_t d = s.n_embd, q = int64_t{s.n_head} * s.head_dim;
  const int64_t kv = int64_t{s.n_head_kv} * s.head_dim, f = s.n_ff, n = s.n_expert;
  t.Matrix("token_embd.weight", d, s.n_vocab, ORCD_TYPE_Q8_0);
  t.Norm("output_norm.weight", d);
  t.Matrix("output.weight", d, s.n_vocab, ORCD_TYPE_Q8_0);
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    t.Norm(Blk(l, "attn_norm.weight"), d);
    t.Matrix(Blk(l, "attn_q.weight"), d, q, ORCD_TYPE_Q8_0);
    t.Bias(Blk(l, "attn_q.bias"), q);
    t.Matrix(Blk(l, "attn_k.weight"), d, kv, ORCD_TYPE_Q8_0);
    t.Bias(Blk(l, "attn_k.bias"), kv);
    t.Matrix(Blk(l, "attn_v.weight"), d, kv, ORCD_TYPE_Q8_0);
    t.Bias(Blk(l, "attn_v.bias"), kv);
    t.Matrix(Blk(l, "attn_output.weight"), q, d, ORCD_TYPE_Q8_0);
    t.Bias(Blk(l, "attn_output.bias"), d);
    t.Bias(Blk(l, "attn_sinks.weight"), s.n_head);
    t.Norm(Blk(l, "post_attention_norm.weight"), d);
    t.Matrix(Blk(l, "ffn_gate_inp.weight"), d, n, ORCD_TYPE_F32);
    t.Bias(Blk(l, "ffn_gate_inp.bias"), n);
    t.Experts(Blk(l, "ffn_gate_exps.weight"), d, f, n, ORCD_TYPE_MXFP4);
    t.ExpertBiases(Blk(l, "ffn_gate_exps.bias"), f, n);
    t.Experts(Blk(l, "ffn_up_exps.weight"), d, f, n, ORCD_TYPE_MXFP4);
    t.ExpertBiases(Blk(l, "ffn_up_exps.bias"), f, n);
    t.Experts(Blk(l, "ffn_down_exps.weight"), f, d, n, ORCD_TYPE_MXFP4);
    t.ExpertBiases(Blk(l, "ffn_down_exps.bias"), d, n);
  }
  return s;
}

}  // namespace

std::optional<ModelShape> MakeShape(const std::string& shape, uint32_t demo_type) {
  if (shape == "demo") return Demo(demo_type);
  if (shape == "qwen3-tiny") return Qwen3Tiny(demo_type);
  if (shape == "qwen2-0.5b") return Qwen2_05B();
  if (shape == "phi3-mini") return Phi3Mini();
  if (shape == "gpt-oss-20b") return GptOss20B();
  return std::nullopt;
}

const char* ShapeNames() { return "demo | qwen3-tiny | qwen2-0.5b | phi3-mini | gpt-oss-20b"; }

}  // namespace orcd::synth
