#include "host/engine/lowering.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "host/engine/lowered_ops.h"

namespace orcd::engine {
namespace {

using Instructions = std::vector<PlanInstruction>;

template <class P>
std::vector<uint8_t> Bytes(const P& p) {
  const auto* b = reinterpret_cast<const uint8_t*>(&p);
  return std::vector<uint8_t>(b, b + sizeof p);
}

bool Reads(const PlanInstruction& insn, int32_t r) {
  return std::count(insn.inputs.begin(), insn.inputs.end(), r) > 0;
}
bool Writes(const PlanInstruction& insn, int32_t r) {
  return std::count(insn.outputs.begin(), insn.outputs.end(), r) > 0;
}

// A single-output MATMUL with a bias: the index of the next instruction that
// reads or writes its output, or insns.size() (none, or no such MATMUL).
size_t NextUseOfBiasedOutput(const Instructions& insns, size_t i) {
  const PlanInstruction& mm = insns[i];
  if (mm.opcode != ORCD_OP_MATMUL || mm.outputs.size() != 1 || mm.weights.size() != 2)
    return insns.size();
  const int32_t y = mm.outputs[0];
  size_t j = i + 1;
  while (j < insns.size() && !Reads(insns[j], y) && !Writes(insns[j], y)) ++j;
  return j;
}

// An in-place ROPE on one register, plain or already lowered with a bias.
struct SingleRope {
  orcd_op_rope_params params;
  std::string freq_factors;  // "" = none
  std::string bias;          // "" = none
  int32_t reg;
};

std::optional<SingleRope> AsSingleRope(const PlanInstruction& insn) {
  if (insn.inputs.size() != 1 || insn.outputs != insn.inputs) return std::nullopt;
  if (insn.opcode == ORCD_OP_ROPE) {
    return SingleRope{insn.ParamsAs<orcd_op_rope_params>(),
                      insn.weights.empty() ? "" : insn.weights[0], "", insn.inputs[0]};
  }
  if (insn.opcode != kOpRopeFused) return std::nullopt;
  const auto p = insn.ParamsAs<LoweredRopeParams>();
  const size_t freq = p.has_freq_factors ? 1 : 0;
  return SingleRope{p.rope, freq ? insn.weights[0] : "", p.has_bias[0] ? insn.weights[freq] : "",
                    insn.inputs[0]};
}

PlanInstruction FusedRope(const std::vector<SingleRope>& targets) {
  PlanInstruction out;
  out.opcode = kOpRopeFused;
  LoweredRopeParams p{};
  p.rope = targets[0].params;
  p.has_freq_factors = targets[0].freq_factors.empty() ? 0 : 1;
  if (p.has_freq_factors) out.weights.push_back(targets[0].freq_factors);
  for (size_t i = 0; i < targets.size(); ++i) {
    out.inputs.push_back(targets[i].reg);
    p.has_bias[i] = targets[i].bias.empty() ? 0 : 1;
    if (p.has_bias[i]) out.weights.push_back(targets[i].bias);
  }
  out.outputs = out.inputs;
  out.params = Bytes(p);
  return out;
}

// MATMUL {x} -> {y} + bias, where the next instruction touching y is an
// in-place ROPE of y: the ROPE adds the bias as it reads y (one launch less).
void MoveBiasesIntoRope(Instructions& insns, LoweringCounts& r) {
  for (size_t i = 0; i < insns.size(); ++i) {
    const size_t j = NextUseOfBiasedOutput(insns, i);
    if (j == insns.size()) continue;
    PlanInstruction& mm = insns[i];
    const int32_t y = mm.outputs[0];
    std::optional<SingleRope> rope = AsSingleRope(insns[j]);
    if (!rope || rope->reg != y || !rope->bias.empty()) continue;
    rope->bias = mm.weights[1];
    mm.weights.pop_back();
    insns[j] = FusedRope({*rope});
    ++r.biases_in_rope;
  }
}

// The plugin's ATTENTION as ATTENTION_FUSED with nothing fused yet.
PlanInstruction AsFusedAttention(const PlanInstruction& insn) {
  if (insn.opcode == kOpAttentionFused) return insn;
  PlanInstruction out = insn;
  out.opcode = kOpAttentionFused;
  LoweredAttentionParams p{};
  p.attention = insn.ParamsAs<orcd_op_attention_params>();
  p.has_sinks = insn.weights.empty() ? 0 : 1;
  out.params = Bytes(p);
  return out;
}

// Whether an instruction after `from` reads r before one writes it.
bool ReadLater(const Instructions& insns, size_t from, int32_t r) {
  for (size_t j = from + 1; j < insns.size(); ++j) {
    if (Reads(insns[j], r)) return true;
    if (Writes(insns[j], r)) return false;
  }
  return false;
}

// MATMUL {x} -> {v} + bias, where the next instruction touching v is the
// ATTENTION reading it as V and nothing reads v after: the attention adds
// the bias as it reads V and stores it in the cache (one launch less).
void MoveBiasIntoAttention(Instructions& insns, LoweringCounts& r) {
  for (size_t i = 0; i < insns.size(); ++i) {
    const size_t j = NextUseOfBiasedOutput(insns, i);
    if (j == insns.size()) continue;
    PlanInstruction& mm = insns[i];
    const int32_t v = mm.outputs[0];
    if (!IsAttention(insns[j].opcode) || insns[j].inputs.size() != 3 || insns[j].inputs[2] != v ||
        insns[j].inputs[0] == v || insns[j].inputs[1] == v || Writes(insns[j], v) ||
        ReadLater(insns, j, v)) {
      continue;
    }
    PlanInstruction attention = AsFusedAttention(insns[j]);
    auto p = attention.ParamsAs<LoweredAttentionParams>();
    if (p.has_v_bias) continue;
    p.has_v_bias = 1;
    attention.params = Bytes(p);
    attention.weights.push_back(mm.weights[1]);
    mm.weights.pop_back();
    insns[j] = std::move(attention);
    ++r.biases_in_attention;
  }
}

// Two adjacent single ROPEs (Q then K) with the same parameters: one launch.
void PairRopes(Instructions& insns, LoweringCounts& r) {
  Instructions out;
  for (size_t i = 0; i < insns.size(); ++i) {
    if (i + 1 < insns.size()) {
      const std::optional<SingleRope> a = AsSingleRope(insns[i]);
      const std::optional<SingleRope> b = AsSingleRope(insns[i + 1]);
      if (a && b && a->reg != b->reg && a->freq_factors == b->freq_factors &&
          std::memcmp(&a->params, &b->params, sizeof a->params) == 0) {
        out.push_back(FusedRope({*a, *b}));
        ++r.rope_pairs;
        ++i;
        continue;
      }
    }
    out.push_back(std::move(insns[i]));
  }
  insns = std::move(out);
}

// ADD {a, b} -> {s} then RMS_NORM {s} -> {h} over whole rows: the residual
// sum and the next block's norm in one pass.
void FuseAddRmsNorm(Instructions& insns, int32_t logits, LoweringCounts& r) {
  Instructions out;
  for (size_t i = 0; i < insns.size(); ++i) {
    if (i + 1 < insns.size()) {
      const PlanInstruction& add = insns[i];
      const PlanInstruction& norm = insns[i + 1];
      if (add.opcode == ORCD_OP_ADD && norm.opcode == ORCD_OP_RMS_NORM && add.outputs.size() == 1 &&
          norm.inputs.size() == 1 && norm.outputs.size() == 1 && norm.inputs[0] == add.outputs[0] &&
          !Reads(add, norm.outputs[0]) && norm.outputs[0] != add.outputs[0] &&
          add.outputs[0] != logits && norm.outputs[0] != logits &&
          norm.ParamsAs<orcd_op_norm_params>().group_size == 0) {
        PlanInstruction fused;
        fused.opcode = kOpAddRmsNorm;
        fused.inputs = add.inputs;
        fused.outputs = {add.outputs[0], norm.outputs[0]};
        fused.weights = norm.weights;
        fused.params = Bytes(LoweredNormParams{norm.ParamsAs<orcd_op_norm_params>(), 0});
        out.push_back(std::move(fused));
        ++r.add_rms_norms;
        ++i;
        continue;
      }
    }
    out.push_back(std::move(insns[i]));
  }
  insns = std::move(out);
}

bool Distinct(std::vector<int32_t> regs) {
  std::sort(regs.begin(), regs.end());
  return std::adjacent_find(regs.begin(), regs.end()) == regs.end();
}

// A MATMUL the decode fusions may take in: one output, not its input, and
// no bias.
bool PlainMatmul(const PlanInstruction& mm) {
  return mm.opcode == ORCD_OP_MATMUL && mm.outputs.size() == 1 && mm.weights.size() == 1 &&
         mm.outputs[0] != mm.inputs[0];
}

// MATMUL {x} -> {g} (gate), MATMUL {x} -> {u} (up), SWIGLU {g, u} -> {h},
// adjacent, no biases, g and u read by nothing after: one MATMUL_GLU that
// still names g and u (a many-token run writes them).
void FuseGateUp(Instructions& insns, const WeightQueries& queries, LoweringCounts& r) {
  Instructions out;
  for (size_t i = 0; i < insns.size(); ++i) {
    if (i + 2 < insns.size()) {
      const PlanInstruction& gate = insns[i];
      const PlanInstruction& up = insns[i + 1];
      const PlanInstruction& act = insns[i + 2];
      if (PlainMatmul(gate) && PlainMatmul(up) && up.inputs == gate.inputs &&
          act.opcode == ORCD_OP_SWIGLU &&
          act.inputs == std::vector<int32_t>{gate.outputs[0], up.outputs[0]} &&
          Distinct({gate.inputs[0], gate.outputs[0], up.outputs[0], act.outputs[0]}) &&
          !ReadLater(insns, i + 2, gate.outputs[0]) && !ReadLater(insns, i + 2, up.outputs[0]) &&
          (!queries.fuses_gate_up || queries.fuses_gate_up(gate.weights[0], up.weights[0]))) {
        PlanInstruction fused;
        fused.opcode = kOpMatmulGlu;
        fused.inputs = gate.inputs;
        fused.outputs = {gate.outputs[0], up.outputs[0], act.outputs[0]};
        fused.weights = {gate.weights[0], up.weights[0]};
        fused.params = Bytes(LoweredMatvecParams{0});
        out.push_back(std::move(fused));
        ++r.gate_up_matvecs;
        i += 2;
        continue;
      }
    }
    out.push_back(std::move(insns[i]));
  }
  insns = std::move(out);
}

// A MOE whose gate and up experts the backend runs fused: MOE_GLU.
void FuseMoeGateUp(Instructions& insns, const WeightQueries& queries, LoweringCounts& r) {
  for (PlanInstruction& insn : insns) {
    if (insn.opcode != ORCD_OP_MOE) continue;
    if (queries.fuses_gate_up && !queries.fuses_gate_up(insn.weights[0], insn.weights[1])) continue;
    insn.opcode = kOpMoeGlu;
    ++r.moe_gate_ups;
  }
}

// Adjacent single-output MATMULs without bias on one input whose weights the
// backend runs in one launch (Q, K, V): one MATMUL_MULTI of up to 4.
void JoinSameInputMatmuls(Instructions& insns, const WeightQueries& queries, LoweringCounts& r) {
  Instructions out;
  for (size_t i = 0; i < insns.size(); ++i) {
    size_t end = i + 1;
    if (PlainMatmul(insns[i])) {
      while (end < insns.size() && end - i < 4 && PlainMatmul(insns[end]) &&
             insns[end].inputs == insns[i].inputs &&
             (!queries.joins_matvecs ||
              queries.joins_matvecs(insns[i].weights[0], insns[end].weights[0]))) {
        ++end;
      }
    }
    if (end - i < 2) {
      out.push_back(std::move(insns[i]));
      continue;
    }
    PlanInstruction multi;
    multi.opcode = kOpMatmulMulti;
    multi.inputs = insns[i].inputs;
    for (size_t j = i; j < end; ++j) {
      multi.outputs.push_back(insns[j].outputs[0]);
      multi.weights.push_back(insns[j].weights[0]);
    }
    if (!Distinct(multi.outputs)) {  // one MATMUL overwrites another's output: keep them
      out.push_back(std::move(insns[i]));
      continue;
    }
    multi.params = Bytes(LoweredMatvecParams{0});
    r.multi_matvecs += static_cast<int>(end - i - 1);
    out.push_back(std::move(multi));
    i = end - 1;
  }
  insns = std::move(out);
}

// The register `prev` rounds to 8 bits as it produces it (once lowered
// below), or -1.
int32_t RoundableOutput(const PlanInstruction& prev) {
  if (prev.opcode == kOpAddRmsNorm) return prev.outputs[1];
  if (prev.opcode == ORCD_OP_SWIGLU || prev.opcode == kOpSwigluQ8 || IsAttention(prev.opcode))
    return prev.outputs[0];
  return -1;
}

// A MATMUL right after another on the same input (Q, K, V; gate, up; or a
// MATMUL_MULTI): a MATMUL never writes its input, so the input is unchanged
// between them.
// A MATMUL right after the ADD_RMS_NORM, SWIGLU or ATTENTION producing its
// input: the producer rounds it as it writes it.
// A MATMUL_GLU or MATMUL_MULTI likewise takes its producer's rounding.
void MarkSharedInputs(Instructions& insns, const WeightQueries& queries, LoweringCounts& r) {
  const auto& rounds_input = queries.rounds_input;
  for (size_t i = 1; i < insns.size(); ++i) {
    PlanInstruction& prev = insns[i - 1];
    PlanInstruction& mm = insns[i];
    if (mm.opcode != ORCD_OP_MATMUL && mm.opcode != kOpMatmulGlu && mm.opcode != kOpMatmulMulti)
      continue;
    if (mm.opcode == ORCD_OP_MATMUL &&
        (prev.opcode == ORCD_OP_MATMUL || prev.opcode == kOpMatmulSharedInput ||
         prev.opcode == kOpMatmulMulti) &&
        prev.inputs == mm.inputs) {
      mm.opcode = kOpMatmulSharedInput;
      ++r.shared_inputs;
    } else if (RoundableOutput(prev) == mm.inputs[0] &&
               (!rounds_input || rounds_input(mm.weights[0]))) {
      if (prev.opcode == kOpAddRmsNorm) {
        auto p = prev.ParamsAs<LoweredNormParams>();
        p.quantize_output = 1;
        prev.params = Bytes(p);
      } else if (IsAttention(prev.opcode)) {
        prev = AsFusedAttention(prev);
        auto p = prev.ParamsAs<LoweredAttentionParams>();
        p.round_output = 1;
        prev.params = Bytes(p);
      } else {
        prev.opcode = kOpSwigluQ8;
      }
      if (mm.opcode == kOpMatmulGlu || mm.opcode == kOpMatmulMulti) {
        mm.params = Bytes(LoweredMatvecParams{1});
      } else {
        mm.opcode = kOpMatmulSharedInput;
      }
      ++r.rounded_outputs;
    }
  }
}

}  // namespace

ExecutionPlan LowerPlan(const ExecutionPlan& plan, const AdapterTable& adapters,
                        LoweringReport* report, const WeightQueries& queries) {
  LoweringReport report_all;
  ExecutionPlan out = plan;
  const auto has = [&](uint32_t op) { return adapters.Find(op) != nullptr; };
  for (int p = 0; p < kPhaseCount; ++p) {
    PhasePlan& phase = out.phases[p];
    LoweringCounts& r = report_all.phases[p];
    Instructions& insns = phase.instructions;
    if (has(kOpRopeFused)) {
      MoveBiasesIntoRope(insns, r);
      PairRopes(insns, r);
    }
    if (has(kOpAttentionFused)) MoveBiasIntoAttention(insns, r);
    if (has(kOpAddRmsNorm)) FuseAddRmsNorm(insns, phase.logits_register, r);
    // One token's fusion: the decode phase only (a prefill runs the sequence).
    if (p == static_cast<int>(Phase::kDecode)) {
      if (has(kOpMatmulGlu)) FuseGateUp(insns, queries, r);
      if (has(kOpMoeGlu)) FuseMoeGateUp(insns, queries, r);
      if (has(kOpMatmulMulti)) JoinSameInputMatmuls(insns, queries, r);
    }
    if (has(kOpMatmulSharedInput) && has(kOpSwigluQ8) && has(kOpAttentionFused))
      MarkSharedInputs(insns, queries, r);
  }
  if (report != nullptr) *report = report_all;
  return out;
}

}  // namespace orcd::engine
