// What an adapter sees while running: the batch (tokens, positions), the
// scratch arena holding the registers, the slot's KV cache, the logits
// buffer, per-thread workspace and the thread pool.
#ifndef ORCD_HOST_ENGINE_EXEC_CONTEXT_H_
#define ORCD_HOST_ENGINE_EXEC_CONTEXT_H_

#include <cstdint>

#include "host/engine/bound_plan.h"
#include "host/engine/device_execution.h"
#include "host/engine/kv_cache.h"
#include "host/engine/thread_pool.h"

namespace orcd::engine {

struct ExecContext {
  ThreadPool* pool = nullptr;
  float* arena = nullptr;
  const int32_t* tokens = nullptr;
  int64_t n_tokens = 0;
  int64_t pos0 = 0;  // sequence position of token 0
  KvCache* kv = nullptr;
  // Logits of tokens [first_logit_row, first_logit_row + logit_rows).
  float* logits = nullptr;
  int64_t first_logit_row = 0;
  int64_t logit_rows = 0;
  // Per-thread scratch: workspace + thread * workspace_floats.
  float* workspace = nullptr;
  int64_t workspace_floats = 0;
  // Matmuls may round activations to 8 bits (EngineOptions; on the CPU also
  // prefill's).
  bool q8_activations = false;
  // Device backends: arena and logits above are device memory; the adapters
  // reach the backend (and its device copy of `tokens`) through this.
  DeviceExecution* device = nullptr;

  // Weight bytes the running instruction reads. The executor presets it to
  // the bound instruction's static figure; adapters whose reads depend on the
  // data (MOE reads only the picked experts) overwrite it.
  uint64_t weight_bytes_read = 0;

  float* Reg(const RegisterSlot& s) const {
    return s.kind == RegisterSlot::Kind::kLogits ? logits : arena + s.offset;
  }
  float* In(const BoundInstruction& insn, size_t i) const { return Reg(insn.in[i]); }
  float* Out(const BoundInstruction& insn, size_t i) const { return Reg(insn.out[i]); }
  float* Workspace(int thread) const { return workspace + thread * workspace_floats; }
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_EXEC_CONTEXT_H_
