// Hyperparameters of a llama-family model, from GGUF metadata only
// (<arch>.* keys) and tensor presence: nothing is hard-coded per model.
#ifndef ORCD_PLUGINS_LLAMA_LLAMA_CONFIG_H_
#define ORCD_PLUGINS_LLAMA_LLAMA_CONFIG_H_

#include <cstdint>
#include <string>

#include "orcd/cpp/decoder_shape.h"
#include "orcd/cpp/model_reader.h"
#include "orcd/ops.h"

namespace orcd::llama {

struct LlamaConfig : sdk::DecoderShape {
  std::string arch;
  float norm_eps = 0.0f;
  orcd_op_rope_params rope{};
  sdk::ExpertCounts experts;  // n_expert 0: a dense FFN
};

// The architectures this plugin serves, and whether one is among them.
extern const char* const kArchitectures[];
extern const uint32_t kArchitectureCount;

// Throws sdk::CompileError naming the missing or inconsistent key.
LlamaConfig ReadLlamaConfig(const sdk::ModelReader& model);

}  // namespace orcd::llama

#endif  // ORCD_PLUGINS_LLAMA_LLAMA_CONFIG_H_
