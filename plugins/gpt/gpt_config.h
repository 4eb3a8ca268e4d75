// Hyperparameters of a gpt2 or gpt-oss model, from GGUF metadata (<arch>.*
// keys) and tensor presence only: nothing is hard-coded per model.
#ifndef ORCD_PLUGINS_GPT_GPT_CONFIG_H_
#define ORCD_PLUGINS_GPT_GPT_CONFIG_H_

#include <cstdint>
#include <string>

#include "orcd/cpp/decoder_shape.h"
#include "orcd/cpp/model_reader.h"
#include "orcd/ops.h"

namespace orcd::gpt {

enum class GptVariant { kGpt2, kGptOss };

struct GptConfig : sdk::DecoderShape {
  GptVariant variant = GptVariant::kGpt2;
  float norm_eps = 0.0f;
  // gpt-oss only:
  orcd_op_rope_params rope{};
  uint32_t sliding_window = 0;  // on even layers (llama.cpp's pattern: period 2, last dense)
  uint32_t n_expert = 0;
  uint32_t n_expert_used = 0;
};

extern const char* const kArchitectures[];
extern const uint32_t kArchitectureCount;

// Throws sdk::CompileError naming the missing or inconsistent key.
GptConfig ReadGptConfig(const sdk::ModelReader& model);

// gpt-oss alternates: even layers attend within the window, odd ones to all.
inline bool IsSlidingLayer(const GptConfig& c, uint32_t layer) {
  return c.sliding_window > 0 && layer % 2 == 0;
}

}  // namespace orcd::gpt

#endif  // ORCD_PLUGINS_GPT_GPT_CONFIG_H_
