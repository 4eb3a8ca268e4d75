// What an adapter sees while running: the batch (tokens, positions), the
// scratch arena holding the registers, the KV cache, the logits buffer,
// per-thread workspace and the thread pool.
//
// A batch holds the tokens of one or more sequences (a step): sequence s
// owns rows [first_row, first_row + n_tokens) at positions pos0.. of its own
// KV. Without a step (`seqs` null: kernel tests, the CUDA backend) the batch
// is one sequence at pos0 in the cache's contiguous layout.
#ifndef ORCD_HOST_ENGINE_EXEC_CONTEXT_H_
#define ORCD_HOST_ENGINE_EXEC_CONTEXT_H_

#include <atomic>
#include <cstdint>
#include <functional>

#include "host/engine/bound_plan.h"
#include "host/engine/device_execution.h"
#include "host/engine/kv_cache.h"
#include "host/engine/thread_pool.h"

namespace orcd::engine {

// One sequence of a step.
struct StepSequence {
  int64_t first_row = 0;
  int64_t n_tokens = 0;
  int64_t pos0 = 0;
  KvSequenceView kv;
};

struct ExecContext {
  ThreadPool* pool = nullptr;
  float* arena = nullptr;
  const int32_t* tokens = nullptr;
  int64_t n_tokens = 0;
  int64_t pos0 = 0;  // sequence position of token 0
  KvCache* kv = nullptr;
  // Logits of tokens [first_logit_row, first_logit_row + logit_rows), or,
  // when `logit_row_list` is set, of the logit_rows tokens it names.
  float* logits = nullptr;
  int64_t first_logit_row = 0;
  int64_t logit_rows = 0;
  const int64_t* logit_row_list = nullptr;
  // A step of several sequences (null: one, at pos0): each token's position
  // and sequence index.
  const StepSequence* seqs = nullptr;
  int64_t n_seqs = 0;
  const int64_t* positions = nullptr;
  const int32_t* token_seq = nullptr;
  // Per token, 1 when it is a generated token (a decode step's, or one
  // recomputed after a preemption), 0 for a prompt token; null: all prompt
  // tokens unless the batch is one token (decode). A matmul gives each kind
  // one fixed arithmetic whatever else shares the step (batch invariance).
  const uint8_t* generated = nullptr;
  // Per-thread scratch: workspace + thread * workspace_floats.
  float* workspace = nullptr;
  int64_t workspace_floats = 0;
  // Matmuls may round activations to 8 bits (EngineOptions; on the CPU also
  // prefill's).
  bool q8_activations = false;
  // Device backends: arena and logits above are device memory; the adapters
  // reach the backend (and its device copy of `tokens`) through this.
  DeviceExecution* device = nullptr;

  // Rows [row0, row0 + n_tokens) of the step's registers (Rows()): arena
  // registers begin at row row0. 0 outside a kind run.
  int64_t row0 = 0;

  // Weight bytes the running instruction reads. The executor presets it to
  // the bound instruction's static figure; adapters whose reads depend on the
  // data (MOE reads only the picked experts) overwrite it.
  uint64_t weight_bytes_read = 0;

  // A stop asked for (cancel, deadline) inside a long instruction: a prompt
  // chunk's attention or matmul may run for tens of milliseconds. The check
  // is asked by the caller's thread only (it may poll a socket and is not
  // thread-safe); once it fires, every thread skips its remaining pieces and
  // the executor throws Error(kStopped) after the instruction, so the skipped
  // outputs are never read. Null: the instruction runs whole.
  const std::function<bool()>* should_stop = nullptr;
  std::atomic<bool>* stop_seen = nullptr;

  float* Reg(const RegisterSlot& s) const {
    return s.kind == RegisterSlot::Kind::kLogits ? logits : arena + s.offset + row0 * s.width;
  }
  float* In(const BoundInstruction& insn, size_t i) const { return Reg(insn.in[i]); }
  float* Out(const BoundInstruction& insn, size_t i) const { return Reg(insn.out[i]); }
  float* Workspace(int thread) const { return workspace + thread * workspace_floats; }
  int64_t Position(int64_t t) const { return positions ? positions[t] : pos0 + t; }
  bool Generated(int64_t t) const { return generated ? generated[t] != 0 : n_tokens == 1; }
  // The context of this one's tokens [t0, t1) (a kind run of a device step,
  // ForEachKindRun): registers, tokens and the per-token arrays begin at t0.
  // A step's context (`generated` set): without it a run keeps no kinds.
  ExecContext Rows(int64_t t0, int64_t t1) const {
    ExecContext r = *this;
    r.row0 = row0 + t0;
    r.tokens = tokens + t0;
    r.n_tokens = t1 - t0;
    if (positions != nullptr) {
      r.positions = positions + t0;
    } else {
      r.pos0 = pos0 + t0;
    }
    if (token_seq != nullptr) r.token_seq = token_seq + t0;
    if (generated != nullptr) r.generated = generated + t0;
    return r;
  }
  // True once a stop was asked for; `thread` 0 (the caller's) asks.
  bool Stopping(int thread) const {
    if (stop_seen == nullptr) return false;
    if (thread == 0 && !stop_seen->load(std::memory_order_relaxed) && (*should_stop)())
      stop_seen->store(true, std::memory_order_relaxed);
    return stop_seen->load(std::memory_order_relaxed);
  }
};

// Calls fn(begin, end, generated) for each maximal run of tokens of one kind
// (prompt or generated, ExecContext::Generated): a step usually holds one
// run of decoding sequences' tokens and one of prompt chunks.
template <class Fn>
void ForEachKindRun(const ExecContext& ctx, Fn&& fn) {
  int64_t begin = 0;
  while (begin < ctx.n_tokens) {
    const bool generated = ctx.Generated(begin);
    int64_t end = begin + 1;
    while (end < ctx.n_tokens && ctx.Generated(end) == generated) ++end;
    fn(begin, end, generated);
    begin = end;
  }
}

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_EXEC_CONTEXT_H_
