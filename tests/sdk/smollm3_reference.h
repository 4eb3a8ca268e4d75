// A SmolLM3 forward pass written from the model's definition (Hugging Face's
// SmolLM3 modelling code, llama.cpp's smollm3 graph) in plain double-precision
// loops, sharing nothing with orcd's plans, adapters or SDK helpers: the
// independent computation the out-of-tree smollm3 plugin is checked against.
#ifndef ORCD_TESTS_SDK_SMOLLM3_REFERENCE_H_
#define ORCD_TESTS_SDK_SMOLLM3_REFERENCE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace orcd::testing {

struct SmolLm3Weights {
  int n_vocab = 0, n_embd = 0, n_layer = 0, n_head = 0, n_head_kv = 0, head_dim = 0, n_ff = 0;
  float norm_eps = 1e-6f;
  float rope_base = 5000000.0f;
  // GGUF names -> row-major values ([rows][cols], rows = ggml ne[1]).
  std::map<std::string, std::vector<float>> tensors;
};

// Deliberate departures from the family, to show the comparison notices them.
struct SmolLm3Variant {
  bool no_rope_layers = true;  // false: rotate in every layer (no NoPE layers)
  bool neox_rope = false;      // true: rotate halves (NeoX) instead of adjacent pairs
};

// Logits [tokens.size()][n_vocab], each position attending to itself and
// every earlier one; layers 3, 7, 11, ... without RoPE. The LM head is
// token_embd (tied).
std::vector<double> SmolLm3ReferenceLogits(const SmolLm3Weights& w,
                                           const std::vector<int32_t>& tokens,
                                           SmolLm3Variant variant = {});

}  // namespace orcd::testing

#endif  // ORCD_TESTS_SDK_SMOLLM3_REFERENCE_H_
