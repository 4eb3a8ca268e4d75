// The generic executor: runs a bound phase over one batch by calling each
// instruction's adapter in order. It owns the scratch arena (sized once from
// the bound plan), the logits buffer and the per-thread workspace, so running
// allocates nothing (the logits buffer grows only when a caller first asks for
// more rows), and it counts dispatches.
#ifndef ORCD_HOST_ENGINE_EXECUTOR_H_
#define ORCD_HOST_ENGINE_EXECUTOR_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "host/engine/bound_plan.h"
#include "host/engine/device_execution.h"
#include "host/engine/dispatch_counters.h"
#include "host/engine/exec_context.h"
#include "host/engine/kv_cache.h"
#include "host/engine/thread_pool.h"

namespace orcd::engine {

// A step of one or more sequences: their tokens back to back, where each
// sequence's rows and KV are, and the rows whose logits come back.
struct StepInput {
  std::span<const int32_t> tokens;
  std::span<const StepSequence> seqs;
  std::span<const int64_t> positions;  // per token
  std::span<const int32_t> token_seq;  // per token: index into seqs
  std::span<const uint8_t> generated;  // per token: ExecContext::generated
  std::span<const int64_t> logit_rows;
  // Device only; empty or one per logit row: a row with a request is sampled
  // on the device (its id in Executor::sampled(), in order) instead of
  // coming back as logits.
  std::span<const SampleRequest* const> samples;
};

class Executor {
 public:
  // Device passes from this many tokens are paced so that a stop lands within
  // a layer (each pace costs a host wait and a stop check: ~10 us a layer,
  // under 1 % of such a pass on an H100 for the smallest target model).
  static constexpr int64_t kPacedStopTokens = 64;

  // `plan` (and `device`, when given) must outlive the executor. With a
  // device, registers and logits live in its memory; the host keeps a copy
  // of the logits rows a run returns.
  Executor(const BoundPlan& plan, int threads, int64_t workspace_floats_per_thread,
           DeviceExecution* device = nullptr);

  // Evaluates `tokens` (at most the phase's row capacity) at positions
  // pos0.. and returns the logits, [rows][vocab]: the last token's row, or one
  // row per token when `all_logits` (or when the plan's logits are not
  // selectable by row).
  std::span<const float> Run(Phase phase, std::span<const int32_t> tokens, int64_t pos0,
                             KvCache& kv, bool all_logits);

  // The same run, returning only the argmax of the last token's logits (ties:
  // the lowest id): greedy decoding. On a device only the id is read back.
  int32_t RunArgmax(Phase phase, std::span<const int32_t> tokens, int64_t pos0, KvCache& kv);
  // The same run, sampling the last token's logits on the device. Device only.
  int32_t RunSample(Phase phase, std::span<const int32_t> tokens, int64_t pos0, KvCache& kv,
                    const SampleRequest& request);

  // Evaluates a step and returns the logits of its logit_rows that are not
  // sampled, [rows][vocab], in order; the sampled rows' ids in sampled().
  std::span<const float> RunStep(Phase phase, const StepInput& step, KvCache& kv);
  std::span<const int32_t> sampled() const { return sampled_; }

  // Batch-1 matmuls with 8-bit activations where the weight's plugin has them.
  void set_q8_activations(bool on) { q8_activations_ = on; }
  // Asked before each run and, on the CPU, between instructions and between
  // the pieces of a long one (ExecContext::Stopping): true abandons the run
  // with Error(kStopped), so a cancelled or timed-out job stops inside a long
  // prefill within milliseconds. Device runs are only checked before each
  // run (a prefill pass): their instructions are enqueued, not executed.
  void set_should_stop(std::function<bool()> should_stop) { should_stop_ = std::move(should_stop); }

  DispatchCounters& counters() { return counters_; }
  const DispatchCounters& counters() const { return counters_; }
  int threads() const { return pool_.size(); }

 private:
  const BoundPlan& plan_;
  DeviceExecution* device_;
  ThreadPool pool_;
  std::vector<float> arena_;
  std::vector<float> logits_;
  bool q8_activations_ = false;
  std::vector<float> workspace_;
  int64_t workspace_floats_;
  // Runs the phase's instructions; returns the logits floats the run wrote.
  size_t Execute(Phase phase, std::span<const int32_t> tokens, int64_t pos0, KvCache& kv,
                 bool all_logits, const StepInput* step = nullptr);
  std::vector<float> step_logits_;  // a step's rows gathered from an all-rows plan
  std::vector<SampledRow> sampled_rows_;
  std::vector<int64_t> host_rows_;
  std::vector<int32_t> sampled_;
  int64_t first_logit_row_ = 0;  // the last run's first logits row
  bool listed_logits_ = false;   // the last run's logits rows: the step's list, in order
  // Where the last run left the logits of step.logit_rows[i], in floats.
  int64_t LogitsOffset(const StepInput& step, size_t i, int64_t vocab) const;
  // EMBEDDING's and POSITION_EMBEDDING's checks of the run's rows (what a
  // replayed graph would skip).
  static void CheckRowLookups(const BoundPhase& bp, const ExecContext& ctx);
  // Runs (or enqueues) every instruction; bytes[i] = instruction i's weight
  // bytes. With should_stop, asks it between instructions and inside long
  // ones; with `paced` (a device run), once per layer after PaceRun instead.
  static void Enqueue(const BoundPhase& bp, ExecContext& ctx, std::vector<uint64_t>& bytes,
                      const std::function<bool()>* should_stop = nullptr,
                      DeviceExecution* paced = nullptr);
  void ThrowIfStopRequested() const;
  std::function<bool()> should_stop_;

  DispatchCounters counters_;
  // Per phase and instruction, its opcode's counter (map nodes are stable).
  std::array<std::vector<OpCounter*>, kPhaseCount> op_counters_;
  // Per phase and instruction, the weight bytes of the latest step enqueued
  // instruction by instruction (a replayed graph reads what it recorded).
  std::array<std::vector<uint64_t>, kPhaseCount> step_bytes_;
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_EXECUTOR_H_
