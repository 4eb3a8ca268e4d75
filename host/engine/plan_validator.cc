#include "host/engine/plan_validator.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "host/engine/lowered_ops.h"
#include "host/engine/op_shapes.h"
#include "host/engine/plan_error.h"
#include "host/engine/register_allocator.h"
#include "host/gguf/ggml_type_traits.h"

namespace orcd::engine {
namespace {

bool InPlaceAllowed(Opcode opcode) {
  return opcode == ORCD_OP_ADD || opcode == ORCD_OP_MUL || opcode == ORCD_OP_RMS_NORM ||
         opcode == ORCD_OP_LAYER_NORM || opcode == ORCD_OP_ROPE || opcode == ORCD_OP_GELU ||
         opcode == kOpAddRmsNorm || opcode == kOpRopeFused;
}

// How many leading weights of an opcode go through matmul / get_rows kernels
// (the rest, e.g. biases, are read as f32 by the adapter).
size_t WeightsThroughKernels(Opcode opcode) {
  switch (opcode) {
    case ORCD_OP_EMBEDDING:
    case ORCD_OP_POSITION_EMBEDDING:
    case ORCD_OP_MATMUL:
    case kOpMatmulSharedInput:
    case ORCD_OP_LOGITS:
      return 1;
    case kOpMatmulGlu:
      return 2;  // gate and up
    case kOpMatmulMulti:
      return 4;  // every weight
    case ORCD_OP_MOE:
    case kOpMoeGlu:
      return 3;  // gate, up and down experts
    default:
      return 0;
  }
}

bool ReadsPerToken(Opcode opcode) {
  return opcode == ORCD_OP_EMBEDDING || opcode == ORCD_OP_POSITION_EMBEDDING;
}

std::string Reg(int32_t r) { return "register " + std::to_string(r); }

class PhaseValidator {
 public:
  PhaseValidator(Phase phase, const PhasePlan& plan, const std::vector<KvStateDesc>& kv_states,
                 const WeightTable& weights, const AdapterTable& adapters)
      : phase_(phase), plan_(plan), kv_states_(kv_states), weights_(weights), adapters_(adapters) {}

  BoundPhase Run(int64_t row_capacity) {
    if (plan_.logits_register <= 0) {
      throw PlanError(PlanErrorKind::kMissingLogits,
                      std::string(PhaseName(phase_)) + " phase has no logits register");
    }
    if (plan_.instructions.empty()) {
      throw PlanError(PlanErrorKind::kMissingLogits,
                      std::string(PhaseName(phase_)) + " phase is empty");
    }
    BoundPhase out;
    out.row_capacity = row_capacity;
    for (size_t i = 0; i < plan_.instructions.size(); ++i) out.instructions.push_back(Check(i));
    const int32_t logits = plan_.logits_register;
    if (!widths_.count(logits)) {
      throw PlanError(PlanErrorKind::kMissingLogits, std::string(PhaseName(phase_)) + " logits " +
                                                         Reg(logits) + " is never written");
    }
    if (read_.count(logits)) {
      throw PlanError(PlanErrorKind::kBadRegister,
                      std::string(PhaseName(phase_)) + " logits " + Reg(logits) +
                          " is read by an instruction; logits must be the last result");
    }
    out.vocab = widths_.at(logits);
    out.logits_rows_selectable = logits_from_op_;
    Place(out);
    return out;
  }

 private:
  BoundInstruction Check(size_t index) {
    const PlanInstruction& insn = plan_.instructions[index];
    ShapeQuery q;
    q.insn = &insn;
    q.label = DescribeInstruction(phase_, index, insn);
    q.kv_states = &kv_states_;
    BoundInstruction b;
    b.opcode = insn.opcode;
    b.label = q.label;
    b.params = insn.params;
    b.run = adapters_.Find(insn.opcode);
    if (b.run == nullptr) {
      throw PlanError(PlanErrorKind::kMissingAdapter,
                      q.label + ": opcode " + OpcodeName(insn.opcode) + " has no adapter on the " +
                          adapters_.name() + " backend");
    }
    for (const std::string& name : insn.weights) {
      const WeightRef* w = weights_.Find(name);
      if (w == nullptr) {
        throw PlanError(PlanErrorKind::kUnknownWeight,
                        q.label + ": weight '" + name + "' is not a tensor of the model");
      }
      q.weights.push_back(w);
      b.weight_bytes += w->n_bytes;
    }
    const size_t kernel_weights = std::min(WeightsThroughKernels(insn.opcode), q.weights.size());
    for (size_t i = 0; i < kernel_weights; ++i) {
      if (adapters_.SupportsWeight(*q.weights[i])) continue;
      throw PlanError(PlanErrorKind::kUnsupportedWeightType,
                      q.label + ": no " + adapters_.name() + " kernel for weight '" +
                          q.weights[i]->name + "' of type " + GgmlTypeName(q.weights[i]->type));
    }
    if (ReadsPerToken(insn.opcode) && !q.weights.empty()) b.weight_bytes = q.weights[0]->row_bytes;
    for (int32_t r : insn.inputs) {
      if (r == ORCD_REG_TOKENS) {
        q.in_widths.push_back(1);
        continue;
      }
      auto it = widths_.find(r);
      if (it == widths_.end())
        throw PlanError(PlanErrorKind::kBadRegister,
                        q.label + ": reads " + Reg(r) + " before any instruction writes it");
      q.in_widths.push_back(it->second);
      read_.insert(r);
    }
    if (!InferShapes(q)) {
      throw PlanError(PlanErrorKind::kMissingAdapter,
                      q.label + ": the host has no shape rule for " + OpcodeName(insn.opcode));
    }
    if (insn.opcode != ORCD_OP_EMBEDDING &&
        std::count(insn.inputs.begin(), insn.inputs.end(), ORCD_REG_TOKENS) > 0) {
      throw PlanError(PlanErrorKind::kBadRegister,
                      q.label + ": only EMBEDDING reads the token register");
    }
    for (size_t o = 0; o < insn.outputs.size(); ++o) CheckOutput(insn, q, o);
    if (IsAttention(insn.opcode)) BindKv(insn, q, &b);
    b.weights = q.weights;
    return b;
  }

  void CheckOutput(const PlanInstruction& insn, const ShapeQuery& q, size_t o) {
    const int32_t r = insn.outputs[o];
    if (r == ORCD_REG_TOKENS)
      throw PlanError(PlanErrorKind::kBadRegister, q.label + ": writes the token register");
    for (size_t j = 0; j < o; ++j) {
      if (insn.outputs[j] == r)
        throw PlanError(PlanErrorKind::kBadRegister, q.label + ": writes " + Reg(r) + " twice");
    }
    const bool in_place = std::count(insn.inputs.begin(), insn.inputs.end(), r) > 0;
    if (in_place && !InPlaceAllowed(insn.opcode)) {
      throw PlanError(PlanErrorKind::kBadRegister, q.label + ": " + OpcodeName(insn.opcode) +
                                                       " cannot run in place on " + Reg(r));
    }
    const bool is_logits = r == plan_.logits_register;
    if (insn.opcode == ORCD_OP_LOGITS) {
      if (!is_logits) {
        throw PlanError(PlanErrorKind::kBadRegister,
                        q.label + ": LOGITS must write the phase's logits register");
      }
      logits_from_op_ = true;
    }
    if (is_logits && widths_.count(r)) {
      throw PlanError(PlanErrorKind::kBadRegister,
                      q.label + ": logits " + Reg(r) + " is written twice");
    }
    auto [it, inserted] = widths_.emplace(r, q.out_widths[o]);
    if (!inserted && it->second != q.out_widths[o]) {
      throw PlanError(PlanErrorKind::kShapeMismatch,
                      q.label + ": writes " + Reg(r) + " with width " +
                          std::to_string(q.out_widths[o]) + " but it was written with width " +
                          std::to_string(it->second));
    }
  }

  void BindKv(const PlanInstruction& insn, const ShapeQuery& q, BoundInstruction* b) {
    const uint32_t layer = insn.ParamsAs<orcd_op_attention_params>().kv_layer;
    if (!kv_used_.insert(layer).second) {
      throw PlanError(PlanErrorKind::kBadParams, q.label + ": KV layer " + std::to_string(layer) +
                                                     " is used by two attention instructions");
    }
    for (size_t k = 0; k < kv_states_.size(); ++k) {
      if (kv_states_[k].layer == layer) b->kv_index = static_cast<int>(k);
    }
  }

  // Liveness-based placement of every arena register.
  void Place(BoundPhase& out) {
    std::vector<RegisterUse> uses;
    std::map<int32_t, int64_t> arena_widths;
    const auto arena = [&](int32_t r) {
      return r != ORCD_REG_TOKENS && r != plan_.logits_register;
    };
    for (const PlanInstruction& insn : plan_.instructions) {
      RegisterUse u;
      for (int32_t r : insn.inputs) {
        if (arena(r)) u.reads.push_back(r);
      }
      for (int32_t r : insn.outputs) {
        if (arena(r)) u.writes.push_back(r);
      }
      for (int32_t r : u.writes) arena_widths[r] = widths_.at(r);
      uses.push_back(std::move(u));
    }
    const RegisterAllocation alloc = AllocateRegisters(uses, arena_widths);
    const auto slot = [&](int32_t r) {
      RegisterSlot s;
      if (r == ORCD_REG_TOKENS) {
        s.kind = RegisterSlot::Kind::kTokens;
        s.width = 1;
      } else if (r == plan_.logits_register) {
        s.kind = RegisterSlot::Kind::kLogits;
        s.width = widths_.at(r);
      } else {
        s.offset = alloc.offset.at(r) * out.row_capacity;
        s.width = widths_.at(r);
      }
      return s;
    };
    for (size_t i = 0; i < plan_.instructions.size(); ++i) {
      for (int32_t r : plan_.instructions[i].inputs) out.instructions[i].in.push_back(slot(r));
      for (int32_t r : plan_.instructions[i].outputs) out.instructions[i].out.push_back(slot(r));
    }
    out.arena_floats = alloc.total_width * out.row_capacity;
    out.register_count = static_cast<int64_t>(widths_.size());
    out.slot_count = alloc.slot_count;
  }

  Phase phase_;
  const PhasePlan& plan_;
  const std::vector<KvStateDesc>& kv_states_;
  const WeightTable& weights_;
  const AdapterTable& adapters_;
  std::map<int32_t, int64_t> widths_;
  std::set<int32_t> read_;
  std::set<uint32_t> kv_used_;
  bool logits_from_op_ = false;
};

}  // namespace

BoundPlan ValidatePlan(const ExecutionPlan& plan, const WeightTable& weights,
                       const AdapterTable& adapters, int64_t prefill_rows, int64_t decode_rows) {
  BoundPlan bound;
  for (int p = 0; p < kPhaseCount; ++p) {
    const Phase phase = static_cast<Phase>(p);
    PhaseValidator v(phase, plan.phase(phase), plan.kv_states, weights, adapters);
    bound.phase(phase) = v.Run(phase == Phase::kPrefill ? prefill_rows : decode_rows);
  }
  if (bound.phase(Phase::kPrefill).vocab != bound.phase(Phase::kDecode).vocab) {
    throw PlanError(PlanErrorKind::kShapeMismatch, "prefill and decode logits differ in width");
  }
  return bound;
}

}  // namespace orcd::engine
