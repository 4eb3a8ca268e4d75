// Hyperparameters of a Gemma 2 or Gemma 3 model, from GGUF metadata only
// (<arch>.* keys, with llama.cpp's defaults where a key may be absent).
#ifndef ORCD_PLUGINS_GEMMA_GEMMA_CONFIG_H_
#define ORCD_PLUGINS_GEMMA_GEMMA_CONFIG_H_

#include <cstdint>

#include "orcd/cpp/decoder_shape.h"
#include "orcd/cpp/model_reader.h"
#include "orcd/ops.h"

namespace orcd::gemma {

struct GemmaConfig : sdk::DecoderShape {
  float norm_eps = 0.0f;
  float embedding_scale = 0.0f;  // sqrt(n_embd), applied after the lookup
  float attention_scale = 0.0f;  // on q.k
  float attention_softcap = 0.0f;
  float final_softcap = 0.0f;
  bool qk_norm = false;
  // Local (sliding-window) layers: those with layer % swa_period < swa_period - 1.
  uint32_t sliding_window = 0;
  uint32_t swa_period = 0;
  orcd_op_rope_params rope_global{};
  orcd_op_rope_params rope_local{};

  bool IsLocalLayer(uint32_t layer) const { return layer % swa_period < swa_period - 1; }
};

extern const char* const kArchitectures[];
extern const uint32_t kArchitectureCount;

// Throws sdk::CompileError naming the missing or inconsistent key.
GemmaConfig ReadGemmaConfig(const sdk::ModelReader& model);

}  // namespace orcd::gemma

#endif  // ORCD_PLUGINS_GEMMA_GEMMA_CONFIG_H_
