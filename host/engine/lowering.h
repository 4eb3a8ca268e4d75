// The lowering step: between a plugin's validated plan and its binding, the
// engine rewrites short instruction sequences into the host's lowered ops
// (lowered_ops.h), but only those the backend's adapter table registers. So
// plugins keep emitting macro-ops, a backend opts into a fusion by
// registering its opcode (the CUDA backend, where launches dominate a decode
// step), and the CPU backend, which registers none, runs the plan as written.
#ifndef ORCD_HOST_ENGINE_LOWERING_H_
#define ORCD_HOST_ENGINE_LOWERING_H_

#include <array>
#include <functional>
#include <string>

#include "host/engine/adapter_table.h"
#include "host/engine/plan.h"

namespace orcd::engine {

// What the lowering did to one phase. Each fusion saves the backend one
// kernel launch per run of the phase (a shared input: where the MATMUL takes
// 8-bit activations), a gate/up matvec three (the up MATMUL, its input
// rounding and the SWIGLU), a MOE's two (its up matvecs and activation), a
// MATMUL joining a MATMUL_MULTI two (its matvec and its input rounding).
struct LoweringCounts {
  int add_rms_norms = 0;        // ADD + RMS_NORM pairs fused
  int biases_in_rope = 0;       // MATMUL biases added by the ROPE that follows
  int rope_pairs = 0;           // two ROPEs in one instruction
  int biases_in_attention = 0;  // V's MATMUL bias added by the ATTENTION
  int shared_inputs = 0;        // MATMULs reusing the previous MATMUL's input rounding
  int rounded_outputs = 0;      // ADD_RMS_NORM / SWIGLU / ATTENTION rounding for the MATMUL
  int gate_up_matvecs = 0;      // MATMUL gate, MATMUL up and SWIGLU as MATMUL_GLU (decode)
  int moe_gate_ups = 0;         // MOEs as MOE_GLU (decode): two launches fewer each
  int multi_matvecs = 0;        // MATMULs joining the one before in a MATMUL_MULTI (decode)
  // Launches saved per run of the phase.
  int total() const {
    return add_rms_norms + biases_in_rope + rope_pairs + biases_in_attention + shared_inputs +
           rounded_outputs + 3 * gate_up_matvecs + 2 * moe_gate_ups + 2 * multi_matvecs;
  }
};

struct LoweringReport {
  std::array<LoweringCounts, kPhaseCount> phases;
  const LoweringCounts& phase(Phase p) const { return phases[static_cast<int>(p)]; }
  int total() const { return phases[0].total() + phases[1].total(); }
};

// What the backend does with given weights; a null member: assume yes.
struct WeightQueries {
  // Whether it rounds a one-token input of this weight to 8 bits (then a
  // producer rounding its output for it saves the backend a launch).
  std::function<bool(const std::string& weight)> rounds_input;
  // Whether it runs one token's gate and up matvecs and their SWIGLU in one
  // launch for these two weights.
  std::function<bool(const std::string& gate, const std::string& up)> fuses_gate_up;
  // Whether it runs one token's matvecs of these two weights (one input) in
  // one launch.
  std::function<bool(const std::string& a, const std::string& b)> joins_matvecs;
};

// `plan` must have passed ValidatePlan; the result is validated again when
// it is bound. Registers keep their numbers; instructions only disappear
// into the lowered op that replaces them.
ExecutionPlan LowerPlan(const ExecutionPlan& plan, const AdapterTable& adapters,
                        LoweringReport* report = nullptr, const WeightQueries& queries = {});

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_LOWERING_H_
