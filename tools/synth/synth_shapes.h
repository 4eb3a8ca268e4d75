// The model shapes orcd-synth writes: hyper-parameters, the tensor list in
// llama.cpp's names, and each tensor's ggml type (the quantization mix
// llama-quantize picks for that model).
#ifndef ORCD_TOOLS_SYNTH_SYNTH_SHAPES_H_
#define ORCD_TOOLS_SYNTH_SYNTH_SHAPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace orcd::synth {

// How a tensor's values are drawn.
enum class Fill {
  kMatrix,  // N(0, 0.02)
  kNorm,    // 1 + N(0, 0.1)
  kBias,    // N(0, 0.02)
};

struct TensorSpec {
  std::string name;
  std::vector<int64_t> ne;  // ggml order: ne[0] = row length
  uint32_t type;            // ggml type id
  Fill fill;
};

struct ModelShape {
  std::string shape;         // "demo", "smollm3-tiny", "qwen2-0.5b", "phi3-mini", ...
  std::string architecture;  // general.architecture
  std::string name;          // general.name
  uint32_t file_type = 0;    // general.file_type (llama_ftype)
  uint32_t context_length = 0;
  uint32_t n_embd = 0, n_layer = 0, n_head = 0, n_head_kv = 0, n_ff = 0;
  uint32_t n_vocab = 0;
  float rope_freq_base = 10000.0f;
  float norm_eps = 1e-6f;
  uint32_t sliding_window = 0;  // phi3: metadata only; gpt-oss: every other layer
  uint32_t head_dim = 0;        // attention.key_length / value_length; 0: n_embd / n_head
  uint32_t n_expert = 0, n_expert_used = 0;  // mixture of experts (gpt-oss, qwen3moe)
  uint32_t n_ff_exp = 0;                     // expert_feed_forward_length; 0: n_ff
  float yarn_factor = 0.0f;                  // rope.scaling.* (YaRN) when > 0
  uint32_t yarn_original_context = 0;
  std::string vocab_file = "ggml-vocab-qwen2.gguf";  // under the fixtures' vocab/; "" none
  bool needs_vocab_file = false;                     // copies tokenizer.* from a vocabulary GGUF
  // Further <arch>.* keys the family's loader reads (Gemma's caps and local
  // RoPE base, linear RoPE scaling, ...), written as given.
  std::vector<std::pair<std::string, float>> extra_f32;
  std::vector<std::pair<std::string, uint32_t>> extra_u32;
  std::vector<std::pair<std::string, std::string>> extra_strings;
  std::vector<TensorSpec> tensors;
};

// "demo" and "smollm3-tiny" (F16 or Q8_0 weights: `demo_type`), and the
// published models' shapes (ShapeNames()); nullopt for an unknown shape.
std::optional<ModelShape> MakeShape(const std::string& shape, uint32_t demo_type);

// The names MakeShape accepts, for usage text.
const char* ShapeNames();

}  // namespace orcd::synth

#endif  // ORCD_TOOLS_SYNTH_SYNTH_SHAPES_H_
