// The llama-family plan: embedding, n_layer pre-norm blocks (attention with
// optional Q/K/V biases or a fused Q|K|V weight and per-head q/k norms;
// SwiGLU FFN with separate or fused gate|up, or routed SwiGLU experts), final RMS norm and the LM
// head (tied to the embedding when the file has no output.weight).
#ifndef ORCD_PLUGINS_LLAMA_LLAMA_PLAN_H_
#define ORCD_PLUGINS_LLAMA_LLAMA_PLAN_H_

#include "llama_config.h"
#include "orcd/cpp/model_reader.h"
#include "orcd/cpp/plan_writer.h"

namespace orcd::llama {

// Emits the KV states and both phases' instructions.
void EmitLlamaPlan(const sdk::ModelReader& model, const LlamaConfig& config, sdk::PlanWriter& w);

}  // namespace orcd::llama

#endif  // ORCD_PLUGINS_LLAMA_LLAMA_PLAN_H_
