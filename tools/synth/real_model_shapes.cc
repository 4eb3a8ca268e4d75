// orcd-synth's shapes of published models: every tensor's shape and the
// type llama-quantize gives it in the published Q4_K_M (or MXFP4) file, so
// that speed measured on the random weights is the real model's.
#include <optional>
#include <string>

#include "tools/synth/shape_builder.h"

namespace orcd::synth {
namespace {

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
  AddDecoderTensors(s, {.qkv_bias = true}, Q4KMMix(s.n_layer));
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

// Qwen3-8B, Q4_K_M: per-head q/k norms, heads of 128, untied output.
ModelShape Qwen3_8B() {
  ModelShape s;
  s.shape = "qwen3-8b";
  s.architecture = "qwen3";
  s.name = "synthetic Qwen3-8B shape (random weights)";
  s.file_type = kFileTypeQ4_K_M;
  s.context_length = 40960;
  s.n_embd = 4096;
  s.n_layer = 36;
  s.n_head = 32;
  s.n_head_kv = 8;
  s.head_dim = 128;
  s.n_ff = 12288;
  s.n_vocab = 151936;
  s.rope_freq_base = 1000000.0f;
  AddDecoderTensors(s, {.qk_norm = true, .output = true}, Q4KMMix(s.n_layer));
  return s;
}

// Qwen3-30B-A3B, Q4_K_M: 128 experts of 768, 8 per token, no shared expert;
// the router stays F32. ~17 GiB.
ModelShape Qwen3_30B_A3B() {
  ModelShape s;
  s.shape = "qwen3-30b-a3b";
  s.architecture = "qwen3moe";
  s.name = "synthetic Qwen3-30B-A3B shape (random weights)";
  s.file_type = kFileTypeQ4_K_M;
  s.context_length = 40960;
  s.n_embd = 2048;
  s.n_layer = 48;
  s.n_head = 32;
  s.n_head_kv = 4;
  s.head_dim = 128;
  s.n_ff = 6144;  // written as the converter does; the experts use n_ff_exp
  s.n_ff_exp = 768;
  s.n_expert = 128;
  s.n_expert_used = 8;
  s.n_vocab = 151936;
  s.rope_freq_base = 1000000.0f;
  AddDecoderTensors(s, {.qk_norm = true, .output = true}, Q4KMMix(s.n_layer));
  return s;
}

// Gemma-3-4B-it, Q4_K_M: heads of 256, 5 local (window 1024, RoPE base 1e4)
// to 1 global layer (base 1e6, linear scaling 8), sandwich norms, tied head.
ModelShape Gemma3_4B() {
  ModelShape s;
  s.shape = "gemma-3-4b";
  s.architecture = "gemma3";
  s.name = "synthetic Gemma-3-4B shape (random weights)";
  s.file_type = kFileTypeQ4_K_M;
  s.context_length = 131072;
  s.n_embd = 2560;
  s.n_layer = 34;
  s.n_head = 8;
  s.n_head_kv = 4;
  s.head_dim = 256;
  s.n_ff = 10240;
  s.n_vocab = 262208;
  s.rope_freq_base = 1000000.0f;
  s.sliding_window = 1024;
  s.extra_f32 = {{"rope.freq_base_swa", 10000.0f}, {"rope.scaling.factor", 8.0f}};
  s.extra_strings = {{"rope.scaling.type", "linear"}};
  s.vocab_file = "";  // no Gemma vocabulary among the fixtures
  AddDecoderTensors(s, {.qk_norm = true, .post_norms = true}, Q4KMMix(s.n_layer));
  return s;
}

// Llama-3.1-8B-Instruct, Q4_K_M: GQA 4, untied output, the Llama 3
// rope_freqs.weight (its values drawn near 1 here: only speed is measured).
ModelShape Llama31_8B() {
  ModelShape s;
  s.shape = "llama-3.1-8b";
  s.architecture = "llama";
  s.name = "synthetic Llama-3.1-8B shape (random weights)";
  s.file_type = kFileTypeQ4_K_M;
  s.context_length = 131072;
  s.n_embd = 4096;
  s.n_layer = 32;
  s.n_head = 32;
  s.n_head_kv = 8;
  s.n_ff = 14336;
  s.n_vocab = 128256;
  s.rope_freq_base = 500000.0f;
  s.norm_eps = 1e-5f;
  s.extra_u32 = {{"rope.dimension_count", 128}};
  s.vocab_file = "";  // no Llama 3 vocabulary GGUF among the fixtures
  AddDecoderTensors(s, {.output = true}, Q4KMMix(s.n_layer));
  TensorList(&s.tensors).Norm("rope_freqs.weight", 64);
  return s;
}

}  // namespace

std::optional<ModelShape> MakeRealModelShape(const std::string& shape) {
  if (shape == "qwen2-0.5b") return Qwen2_05B();
  if (shape == "phi3-mini") return Phi3Mini();
  if (shape == "gpt-oss-20b") return GptOss20B();
  if (shape == "qwen3-8b") return Qwen3_8B();
  if (shape == "qwen3-30b-a3b") return Qwen3_30B_A3B();
  if (shape == "gemma-3-4b") return Gemma3_4B();
  if (shape == "llama-3.1-8b") return Llama31_8B();
  return std::nullopt;
}

}  // namespace orcd::synth
