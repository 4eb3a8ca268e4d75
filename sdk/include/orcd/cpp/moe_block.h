// Header-only C++ helper for architecture plugins: a pre-norm mixture-of-
// experts FFN block, emitted as host macro-ops:
//   h = rms_norm(x); logits = router h (+ bias); x += moe(h, logits)
// The MOE op (orcd/ops.h) picks the experts, runs only those, and sums their
// outputs by the gating weights.
#ifndef ORCD_CPP_MOE_BLOCK_H_
#define ORCD_CPP_MOE_BLOCK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "orcd/cpp/decoder_blocks.h"
#include "orcd/cpp/plan_writer.h"
#include "orcd/ops.h"

namespace orcd::sdk {

struct MoeFfnBlock {
  float norm_eps = 0.0f;
  std::string norm;
  std::string router, router_bias;  // [d, E] (+ [E])
  std::string gate_exps, up_exps, down_exps;
  std::string gate_bias, up_bias, down_bias;  // all three or none
  orcd_op_moe_params moe{};
};

// Layer `layer`'s routed experts under llama.cpp's names (router
// ffn_gate_inp, experts ffn_{gate,up,down}_exps), after the norm `norm`;
// the caller sets the gating, the activation and any biases.
inline MoeFfnBlock RoutedExperts(uint32_t layer, const std::string& norm, float norm_eps,
                                 uint32_t n_expert, uint32_t n_expert_used) {
  const std::string blk = "blk." + std::to_string(layer) + ".";
  MoeFfnBlock b;
  b.norm_eps = norm_eps;
  b.norm = blk + norm;
  b.router = blk + "ffn_gate_inp.weight";
  b.gate_exps = blk + "ffn_gate_exps.weight";
  b.up_exps = blk + "ffn_up_exps.weight";
  b.down_exps = blk + "ffn_down_exps.weight";
  b.moe.n_expert = n_expert;
  b.moe.n_expert_used = n_expert_used;
  return b;
}

inline void EmitMoeFfnBlock(PlanWriter& w, orcd_plan_phase phase, const MoeFfnBlock& b, int32_t x) {
  const int32_t h = EmitRmsNorm(w, phase, x, b.norm, b.norm_eps);
  const int32_t logits = w.NewRegister();
  w.Emit(phase, ORCD_OP_MATMUL, {h}, {logits}, WeightWithBias(b.router, b.router_bias));
  std::vector<std::string> weights = {b.gate_exps, b.up_exps, b.down_exps};
  if (!b.gate_bias.empty()) {
    weights.insert(weights.end(), {b.gate_bias, b.up_bias, b.down_bias});
  }
  const int32_t y = w.NewRegister();
  w.Emit(phase, ORCD_OP_MOE, {h, logits}, {y}, weights, b.moe);
  w.Emit(phase, ORCD_OP_ADD, {x, y}, {x});
}

}  // namespace orcd::sdk

#endif  // ORCD_CPP_MOE_BLOCK_H_
