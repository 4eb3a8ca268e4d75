#include "host/engine/plan_builder.h"

#include <string>

#include "host/engine/lowered_ops.h"
#include "host/plugins/host_services.h"
#include "host/plugins/model_view.h"

// Defined here (the ABI leaves it opaque): the plan being built.
struct orcd_plan_builder {
  orcd::engine::ExecutionPlan plan;
};

namespace orcd::engine {
namespace {

orcd_error* Invalid(const std::string& message) {
  return NewOrcdError(ORCD_ERR_INVALID_ARGUMENT, "plan builder: " + message);
}

bool ValidPhase(orcd_plan_phase phase) {
  return phase == ORCD_PHASE_PREFILL || phase == ORCD_PHASE_DECODE;
}

orcd_error* CopyRegisters(const int32_t* regs, uint32_t n, const char* what,
                          std::vector<int32_t>* out) {
  if (n > kMaxInstructionOperands) return Invalid(std::string("too many ") + what);
  if (n > 0 && regs == nullptr) return Invalid(std::string(what) + " is NULL");
  for (uint32_t i = 0; i < n; ++i) {
    if (regs[i] < 0 || regs[i] >= kMaxRegister) {
      return Invalid(std::string(what) + " names register " + std::to_string(regs[i]) +
                     " (valid: 0.." + std::to_string(kMaxRegister - 1) + ")");
    }
    out->push_back(regs[i]);
  }
  return nullptr;
}

orcd_error* AddInstruction(orcd_plan_builder* b, orcd_plan_phase phase,
                           const orcd_instruction* insn) {
  if (b == nullptr || insn == nullptr) return Invalid("NULL builder or instruction");
  if (!ValidPhase(phase)) return Invalid("unknown phase " + std::to_string(phase));
  if (insn->struct_size < sizeof(orcd_instruction))
    return Invalid("instruction struct_size too small");
  if (IsLoweredOp(insn->opcode)) {
    return Invalid("opcode " + std::to_string(insn->opcode) +
                   " is reserved for the host's lowered ops (" + std::to_string(kFirstLoweredOp) +
                   ".." + std::to_string(ORCD_OP_PLUGIN_BASE - 1) + ")");
  }
  PlanInstruction out;
  out.opcode = insn->opcode;
  if (orcd_error* e = CopyRegisters(insn->inputs, insn->n_inputs, "inputs", &out.inputs)) return e;
  if (orcd_error* e = CopyRegisters(insn->outputs, insn->n_outputs, "outputs", &out.outputs))
    return e;
  if (insn->n_weights > kMaxInstructionOperands) return Invalid("too many weights");
  if (insn->n_weights > 0 && insn->weights == nullptr) return Invalid("weights is NULL");
  for (uint32_t i = 0; i < insn->n_weights; ++i) {
    if (insn->weights[i] == nullptr) return Invalid("weight name is NULL");
    out.weights.emplace_back(insn->weights[i]);
  }
  if (insn->params_size > kMaxParamsBytes) return Invalid("parameter block too large");
  if (insn->params_size > 0) {
    if (insn->params == nullptr) return Invalid("params is NULL with params_size > 0");
    const auto* bytes = static_cast<const uint8_t*>(insn->params);
    out.params.assign(bytes, bytes + insn->params_size);
  }
  b->plan.phase(static_cast<Phase>(phase)).instructions.push_back(std::move(out));
  return nullptr;
}

orcd_error* AddKvState(orcd_plan_builder* b, const orcd_kv_state_desc* desc) {
  if (b == nullptr || desc == nullptr) return Invalid("NULL builder or descriptor");
  if (desc->struct_size < sizeof(orcd_kv_state_desc))
    return Invalid("kv descriptor struct_size too small");
  if (desc->n_kv_heads == 0 || desc->head_dim == 0)
    return Invalid("kv state with zero heads or head_dim");
  for (const KvStateDesc& k : b->plan.kv_states) {
    if (k.layer == desc->layer)
      return Invalid("kv state for layer " + std::to_string(desc->layer) + " given twice");
  }
  b->plan.kv_states.push_back(
      {desc->layer, desc->n_kv_heads, desc->head_dim, desc->sliding_window});
  return nullptr;
}

orcd_error* SetLogits(orcd_plan_builder* b, orcd_plan_phase phase, int32_t reg) {
  if (b == nullptr) return Invalid("NULL builder");
  if (!ValidPhase(phase)) return Invalid("unknown phase " + std::to_string(phase));
  if (reg <= 0 || reg >= kMaxRegister) return Invalid("bad logits register " + std::to_string(reg));
  b->plan.phase(static_cast<Phase>(phase)).logits_register = reg;
  return nullptr;
}

const orcd_plan_builder_ops kOps = {sizeof(orcd_plan_builder_ops), AddInstruction, AddKvState,
                                    SetLogits};

}  // namespace

const orcd_plan_builder_ops* PlanBuilderOps() { return &kOps; }

ExecutionPlan CompilePlan(const orcd_arch_plugin& plugin, const GgufFile& file) {
  orcd_model_view view(file);
  orcd_plan_builder builder;
  ThrowIfPluginError(plugin.compile(&view, ModelViewOps(), &builder, PlanBuilderOps()),
                     "compiling the execution plan of " + file.source_name());
  return std::move(builder.plan);
}

}  // namespace orcd::engine
