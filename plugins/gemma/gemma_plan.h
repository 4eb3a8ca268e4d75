// The Gemma 2 / Gemma 3 plan: the token embedding scaled by sqrt(d); n_layer
// blocks with norms before and after attention and the GEGLU FFN (the file
// stores Gemma's 1 + w norm gains, used as plain RMS norm weights); local
// sliding-window layers and global ones, each with its RoPE; Gemma 2's
// attention and final logit soft-caps; Gemma 3's per-head q/k norms; the
// LM head tied to the embedding unless the file has output.weight.
#ifndef ORCD_PLUGINS_GEMMA_GEMMA_PLAN_H_
#define ORCD_PLUGINS_GEMMA_GEMMA_PLAN_H_

#include "gemma_config.h"
#include "orcd/cpp/plan_writer.h"

namespace orcd::gemma {

// Emits the KV states and both phases' instructions.
void EmitGemmaPlan(const GemmaConfig& config, sdk::PlanWriter& w);

}  // namespace orcd::gemma

#endif  // ORCD_PLUGINS_GEMMA_GEMMA_PLAN_H_
