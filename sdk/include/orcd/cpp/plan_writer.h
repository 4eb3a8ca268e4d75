// Header-only C++ helper for architecture plugins: emits instructions, KV
// states and logits through the host's plan builder (orcd_plan_builder_ops),
// turning builder errors into CompileError; and CatchCompileErrors, which
// runs a compile body and converts exceptions into the orcd_error the ABI
// returns.
#ifndef ORCD_CPP_PLAN_WRITER_H_
#define ORCD_CPP_PLAN_WRITER_H_

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <string>
#include <vector>

#include "orcd/cpp/model_reader.h"
#include "orcd/ops.h"
#include "orcd/plugin.h"

namespace orcd::sdk {

class PlanWriter {
 public:
  PlanWriter(orcd_plan_builder* builder, const orcd_plan_builder_ops* ops,
             const orcd_host_services* host)
      : builder_(builder), ops_(ops), host_(host) {}

  // A fresh register (1, 2, ...; 0 is ORCD_REG_TOKENS).
  int32_t NewRegister() { return next_register_++; }

  void Emit(orcd_plan_phase phase, orcd_opcode opcode, std::initializer_list<int32_t> inputs,
            std::initializer_list<int32_t> outputs, const std::vector<std::string>& weights = {},
            const void* params = nullptr, uint32_t params_size = 0) {
    std::vector<int32_t> in(inputs), out(outputs);
    std::vector<const char*> names;
    for (const std::string& w : weights) names.push_back(w.c_str());
    orcd_instruction insn{};
    insn.struct_size = sizeof insn;
    insn.opcode = opcode;
    insn.inputs = in.data();
    insn.n_inputs = static_cast<uint32_t>(in.size());
    insn.outputs = out.data();
    insn.n_outputs = static_cast<uint32_t>(out.size());
    insn.weights = names.data();
    insn.n_weights = static_cast<uint32_t>(names.size());
    insn.params = params;
    insn.params_size = params_size;
    Check(ops_->add_instruction(builder_, phase, &insn));
  }

  template <class Params>
  void Emit(orcd_plan_phase phase, orcd_opcode opcode, std::initializer_list<int32_t> inputs,
            std::initializer_list<int32_t> outputs, const std::vector<std::string>& weights,
            const Params& params) {
    Emit(phase, opcode, inputs, outputs, weights, &params, static_cast<uint32_t>(sizeof params));
  }

  void KvState(uint32_t layer, uint32_t n_kv_heads, uint32_t head_dim, uint32_t sliding_window) {
    orcd_kv_state_desc d{};
    d.struct_size = sizeof d;
    d.layer = layer;
    d.n_kv_heads = n_kv_heads;
    d.head_dim = head_dim;
    d.sliding_window = sliding_window;
    Check(ops_->add_kv_state(builder_, &d));
  }

  void Logits(orcd_plan_phase phase, int32_t reg) { Check(ops_->set_logits(builder_, phase, reg)); }

 private:
  void Check(orcd_error* e) {
    if (e == nullptr) return;
    const orcd_status code = host_->error_code(e);
    std::string message = host_->error_message(e);
    host_->error_free(e);
    throw CompileError(code, message);
  }

  orcd_plan_builder* builder_;
  const orcd_plan_builder_ops* ops_;
  const orcd_host_services* host_;
  int32_t next_register_ = 1;
};

// Runs body(); returns NULL, or the error it threw as an orcd_error.
template <class Body>
orcd_error* CatchCompileErrors(const orcd_host_services* host, Body&& body) {
  try {
    body();
    return nullptr;
  } catch (const CompileError& e) {
    return host->error_new(e.code(), e.what());
  } catch (const std::exception& e) {
    return host->error_new(ORCD_ERR_INTERNAL, e.what());
  } catch (...) {
    return host->error_new(ORCD_ERR_INTERNAL, "unknown exception in compile");
  }
}

}  // namespace orcd::sdk

#endif  // ORCD_CPP_PLAN_WRITER_H_
