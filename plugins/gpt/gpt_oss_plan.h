// The gpt-oss plan: token embedding, n_layer pre-RMSNorm blocks (Q/K/V/O with
// biases, NEOX RoPE with YaRN, GQA with a learned per-head attention sink,
// a sliding window on even layers; then post_attention_norm and a MoE FFN
// whose router has a bias and whose experts use the clamped SwiGLU), final
// RMSNorm and the LM head.
#ifndef ORCD_PLUGINS_GPT_GPT_OSS_PLAN_H_
#define ORCD_PLUGINS_GPT_GPT_OSS_PLAN_H_

#include "gpt_config.h"
#include "orcd/cpp/model_reader.h"
#include "orcd/cpp/plan_writer.h"

namespace orcd::gpt {

void EmitGptOssPlan(const sdk::ModelReader& model, const GptConfig& config, sdk::PlanWriter& w);

}  // namespace orcd::gpt

#endif  // ORCD_PLUGINS_GPT_GPT_OSS_PLAN_H_
