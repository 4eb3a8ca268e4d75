// The host's own opcodes, produced by the lowering step (lowering.h) from a
// validated plugin plan and never accepted from a plugin (the plan builder
// refuses the range). Each stands for a short sequence of macro-ops that a
// backend runs in fewer kernel launches; its results are those of the
// sequence, bit for bit.
#ifndef ORCD_HOST_ENGINE_LOWERED_OPS_H_
#define ORCD_HOST_ENGINE_LOWERED_OPS_H_

#include <cstdint>

#include "orcd/ops.h"

namespace orcd::engine {

// [kFirstLoweredOp, ORCD_OP_PLUGIN_BASE): reserved for the host.
constexpr uint32_t kFirstLoweredOp = 0x8000u;

enum LoweredOp : uint32_t {
  // ADD {a, b} -> {s}; RMS_NORM {s} -> {h} (whole rows, optional gamma):
  // in {a, b}; out {s, h}; w {gamma} or {}; params LoweredNormParams.
  kOpAddRmsNorm = kFirstLoweredOp + 1,
  // One or two in-place ROPEs with the same parameters, each optionally
  // taking the bias its MATMUL no longer adds: in {r0[, r1]}; out the same;
  // w {freq_factors?, bias of r0?, bias of r1?} as LoweredRopeParams says.
  kOpRopeFused = kFirstLoweredOp + 2,
  // A MATMUL reading the register the MATMUL just before it read: a backend
  // may reuse that instruction's rounding of the input (8-bit activations).
  // That also covers a MATMUL right after an ADD_RMS_NORM with
  // quantize_output or a SWIGLU_Q8 reading what they produced.
  kOpMatmulSharedInput = kFirstLoweredOp + 3,
  // A SWIGLU whose output the next MATMUL reads: one token's output is
  // rounded to 8 bits as it is produced. Operands as SWIGLU's.
  kOpSwigluQ8 = kFirstLoweredOp + 4,
  // ATTENTION adding V's bias as it reads V (its MATMUL no longer does), and
  // with round_output rounding one token's output for the MATMUL after it:
  // in {q, k, v}; out {o}; w {sinks?, v bias?}; params LoweredAttentionParams.
  kOpAttentionFused = kFirstLoweredOp + 5,
  // MATMUL {x} -> {g} (gate), MATMUL {x} -> {u} (up), SWIGLU {g, u} -> {h},
  // neither g nor u read later: one token's h in one launch (the quant
  // plugin's matvec_glu_q8); many tokens run the sequence. in {x}; out
  // {g, u, h}; w {gate, up}; params LoweredMatvecParams.
  kOpMatmulGlu = kFirstLoweredOp + 6,
  // MOE whose picked experts' gate and up matvecs and activation run as one
  // launch at one token (matvec_glu_q8). Operands as MOE's.
  kOpMoeGlu = kFirstLoweredOp + 7,
  // 2 to 4 adjacent single-output MATMULs without bias on one input (Q, K,
  // V), weights of one type: one token's rows in one launch (the quant
  // plugin's matvec_multi_q8). in {x}; out {y_1..y_n}; w {w_1..w_n}; params
  // LoweredMatvecParams.
  kOpMatmulMulti = kFirstLoweredOp + 8,
};

inline bool IsAttention(uint32_t opcode) {
  return opcode == ORCD_OP_ATTENTION || opcode == kOpAttentionFused;
}

inline bool IsMoe(uint32_t opcode) { return opcode == ORCD_OP_MOE || opcode == kOpMoeGlu; }

inline bool IsLoweredOp(uint32_t opcode) {
  return opcode >= kFirstLoweredOp && opcode < ORCD_OP_PLUGIN_BASE;
}

struct LoweredNormParams {
  orcd_op_norm_params norm;  // group_size 0
  uint32_t quantize_output;  // the next MATMUL reads h: round it as produced
};

// Starts with the plugin's block: ParamsAs<orcd_op_attention_params> reads it.
struct LoweredAttentionParams {
  orcd_op_attention_params attention;
  uint32_t has_sinks;     // weights[0] is the sinks
  uint32_t has_v_bias;    // then V's bias
  uint32_t round_output;  // the next MATMUL reads o: round it as produced
};

// MATMUL_GLU's and MATMUL_MULTI's.
struct LoweredMatvecParams {
  uint32_t shared_input;  // the producer of x rounds it for this instruction
};

struct LoweredRopeParams {
  orcd_op_rope_params rope;
  uint32_t has_freq_factors;  // weights[0] is the frequency factors
  uint32_t has_bias[2];       // then the biases of the targets that have one
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_LOWERED_OPS_H_
