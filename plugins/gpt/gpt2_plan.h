// The gpt2 plan: token + learned position embeddings, n_layer pre-LayerNorm
// blocks (fused Q|K|V with bias, MHA without RoPE, output projection with
// bias; GELU FFN with biases), final LayerNorm and the LM head (tied to the
// token embedding when the file has no output.weight).
#ifndef ORCD_PLUGINS_GPT_GPT2_PLAN_H_
#define ORCD_PLUGINS_GPT_GPT2_PLAN_H_

#include "gpt_config.h"
#include "orcd/cpp/model_reader.h"
#include "orcd/cpp/plan_writer.h"

namespace orcd::gpt {

void EmitGpt2Plan(const sdk::ModelReader& model, const GptConfig& config, sdk::PlanWriter& w);

}  // namespace orcd::gpt

#endif  // ORCD_PLUGINS_GPT_GPT2_PLAN_H_
