// Hyperparameters of a llama-family model, from GGUF metadata only
// (<arch>.* keys) and tensor presence: nothing is hard-coded per model.
#ifndef ORCD_PLUGINS_LLAMA_LLAMA_CONFIG_H_
#define ORCD_PLUGINS_LLAMA_LLAMA_CONFIG_H_

#include <cstdint>
#include <string>

#include "orcd/cpp/model_reader.h"
#include "orcd/ops.h"

namespace orcd::llama {

struct LlamaConfig {
  std::string arch;
  uint32_t n_embd = 0;
  uint32_t n_layer = 0;
  uint32_t n_head = 0;
  uint32_t n_head_kv = 0;
  uint32_t head_dim = 0;
  float norm_eps = 0.0f;
  orcd_op_rope_params rope{};
  std::string output_weight;  // output.weight, or token_embd.weight when tied
};

// The architectures this plugin serves, and whether one is among them.
extern const char* const kArchitectures[];
extern const uint32_t kArchitectureCount;

// Throws sdk::CompileError naming the missing or inconsistent key.
LlamaConfig ReadLlamaConfig(const sdk::ModelReader& model);

}  // namespace orcd::llama

#endif  // ORCD_PLUGINS_LLAMA_LLAMA_CONFIG_H_
