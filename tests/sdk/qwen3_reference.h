// A qwen3 forward pass written from the model's definition (Hugging Face's
// Qwen3 modelling code, llama.cpp's qwen3 graph) in plain double-precision
// loops, sharing nothing with orcd's plans, adapters or SDK helpers: the
// independent computation the out-of-tree qwen3 plugin is checked against.
#ifndef ORCD_TESTS_SDK_QWEN3_REFERENCE_H_
#define ORCD_TESTS_SDK_QWEN3_REFERENCE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace orcd::testing {

struct Qwen3Weights {
  int n_vocab = 0, n_embd = 0, n_layer = 0, n_head = 0, n_head_kv = 0, head_dim = 0, n_ff = 0;
  float norm_eps = 1e-6f;
  float rope_base = 1000000.0f;
  // GGUF names -> row-major values ([rows][cols], rows = ggml ne[1]).
  std::map<std::string, std::vector<float>> tensors;
};

// Deliberate departures from the family, to show the comparison notices them.
struct Qwen3Variant {
  bool qk_norm = true;    // false: skip the per-head q/k RMS norms
  bool neox_rope = true;  // false: rotate adjacent pairs (llama's RoPE) instead
};

// Logits [tokens.size()][n_vocab], each position attending to itself and
// every earlier one. The LM head is token_embd (tied).
std::vector<double> Qwen3ReferenceLogits(const Qwen3Weights& w, const std::vector<int32_t>& tokens,
                                         Qwen3Variant variant = {});

}  // namespace orcd::testing

#endif  // ORCD_TESTS_SDK_QWEN3_REFERENCE_H_
