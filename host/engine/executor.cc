#include "host/engine/executor.h"

#include "host/engine/lowered_ops.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "host/common/status.h"
#include "host/engine/exec_context.h"
#include "host/engine/row_lookup_checks.h"
#include "host/sampling/sampler.h"

namespace orcd::engine {

Executor::Executor(const BoundPlan& plan, int threads, int64_t workspace_floats_per_thread,
                   DeviceExecution* device)
    : plan_(plan),
      device_(device),
      pool_(device ? 1 : threads),
      workspace_floats_(device ? 0 : workspace_floats_per_thread) {
  int64_t arena = 0;
  for (int p = 0; p < kPhaseCount; ++p) {
    const BoundPhase& phase = plan.phases[p];
    arena = std::max(arena, phase.arena_floats);
    for (const BoundInstruction& insn : phase.instructions) {
      op_counters_[p].push_back(&counters_.ops[insn.opcode]);
    }
  }
  if (device_ == nullptr) arena_.assign(static_cast<size_t>(arena), 0.0f);
  workspace_.assign(static_cast<size_t>(workspace_floats_ * pool_.size()), 0.0f);
  // Room for one row per phase run without growing later.
  logits_.assign(static_cast<size_t>(plan.phase(Phase::kDecode).vocab), 0.0f);
}

size_t Executor::Execute(Phase phase, std::span<const int32_t> tokens, int64_t pos0, KvCache& kv,
                         bool all_logits, const StepInput* step) {
  const BoundPhase& bp = plan_.phase(phase);
  const auto n = static_cast<int64_t>(tokens.size());
  if (n <= 0 || n > bp.row_capacity) {
    throw Error(ErrorCode::kInvalidArgument, std::string(PhaseName(phase)) + " run of " +
                                                 std::to_string(n) + " tokens (1.." +
                                                 std::to_string(bp.row_capacity) + " allowed)");
  }
  const auto check_positions = [&](int64_t first, int64_t count) {
    if (first < 0 || first + count > kv.context_length()) {
      throw Error(ErrorCode::kInvalidArgument,
                  "positions " + std::to_string(first) + ".." + std::to_string(first + count - 1) +
                      " exceed the context length " + std::to_string(kv.context_length()));
    }
  };
  if (step == nullptr) {
    check_positions(pos0, n);
  } else {
    for (const StepSequence& seq : step->seqs) check_positions(seq.pos0, seq.n_tokens);
  }
  ThrowIfStopRequested();
  ExecContext ctx;
  ctx.pool = &pool_;
  ctx.arena = device_ ? device_->arena() : arena_.data();
  ctx.tokens = tokens.data();
  ctx.n_tokens = n;
  ctx.pos0 = pos0;
  ctx.kv = &kv;
  const bool last_only = bp.logits_rows_selectable && !all_logits;
  ctx.first_logit_row = last_only ? n - 1 : 0;
  ctx.logit_rows = last_only ? 1 : n;
  if (step != nullptr) {
    ctx.seqs = step->seqs.data();
    ctx.n_seqs = static_cast<int64_t>(step->seqs.size());
    ctx.positions = step->positions.data();
    ctx.token_seq = step->token_seq.data();
    ctx.generated = step->generated.data();
    const std::span<const int64_t> asked = step->logit_rows;
    // A device's prompt rows asked in one span (one prompt's last row, or all
    // its rows), none generated: their span; else (a mixed step, several
    // prompts) the listed rows only, each with its one-row arithmetic.
    const bool span = !asked.empty() &&
                      asked.back() - asked.front() + 1 == static_cast<int64_t>(asked.size()) &&
                      std::none_of(step->generated.begin(), step->generated.end(),
                                   [](uint8_t g) { return g != 0; });
    if (bp.logits_rows_selectable && device_ != nullptr &&
        (phase == Phase::kDecode || span || asked.empty())) {
      // A device computes a span of rows: a decode step all of them (its
      // graph, replayed for any step of as many rows, was recorded so), a
      // prompt step from the first asked to the last (the last when none is).
      ctx.first_logit_row = span ? asked.front() : phase == Phase::kDecode ? 0 : n - 1;
      ctx.logit_rows = span                      ? asked.back() - ctx.first_logit_row + 1
                       : phase == Phase::kDecode ? n
                                                 : 1;
    } else if (bp.logits_rows_selectable) {
      ctx.first_logit_row = 0;
      ctx.logit_rows = static_cast<int64_t>(step->logit_rows.size());
      ctx.logit_row_list = step->logit_rows.data();
    }
  }
  first_logit_row_ = ctx.first_logit_row;
  listed_logits_ = ctx.logit_row_list != nullptr;
  const auto logits_size = static_cast<size_t>(ctx.logit_rows * bp.vocab);
  if (logits_.size() < logits_size) logits_.resize(logits_size);
  ctx.logits = device_ ? device_->logits(logits_size) : logits_.data();
  ctx.device = device_;
  if (device_) device_->BeginRun(tokens, pos0);
  ctx.workspace = workspace_.data();
  ctx.workspace_floats = workspace_floats_;
  ctx.q8_activations = q8_activations_;

  // A decode step on a device may be a replayed graph of an earlier step's
  // launches (one per number of rows); the instructions' weight bytes are
  // those of the last step run.
  std::vector<uint64_t>& bytes = step_bytes_[static_cast<int>(phase)];
  const int64_t decode_rows = phase == Phase::kDecode ? n : 0;
  // A replayed graph runs no adapter: their host-side checks of the rows a
  // step looks up (token ids, learned positions) run here first.
  if (device_ && decode_rows > 0) CheckRowLookups(bp, ctx);
  if (!(device_ && device_->ReplayStep(decode_rows))) {
    bytes.assign(bp.instructions.size(), 0);
    const bool capturing = device_ && device_->CaptureStep(decode_rows);
    try {
      // On a device, a long pass is paced per layer so that a stop lands
      // inside it (a 512-token pass of a 20B MoE runs for a long while).
      const bool paced = device_ && !capturing && should_stop_ && n >= kPacedStopTokens;
      Enqueue(bp, ctx, bytes, !should_stop_ || (device_ && !paced) ? nullptr : &should_stop_,
              paced ? device_ : nullptr);
      if (capturing) device_->EndCaptureStep();
    } catch (const Error&) {
      if (!capturing) throw;
      // Nothing ran while recording: graphs are off from now on, and the
      // step runs as usual.
      device_->AbortCaptureStep();
      Enqueue(bp, ctx, bytes);
    }
  }
  const std::vector<OpCounter*>& op_counters = op_counters_[static_cast<int>(phase)];
  for (size_t i = 0; i < bp.instructions.size(); ++i) {
    ++op_counters[i]->dispatches;
    op_counters[i]->weight_bytes += bytes[i];
  }
  PhaseCounter& pc = counters_.phases[static_cast<int>(phase)];
  ++pc.runs;
  pc.tokens += static_cast<uint64_t>(n);
  return logits_size;
}

void Executor::CheckRowLookups(const BoundPhase& bp, const ExecContext& ctx) {
  for (const BoundInstruction& insn : bp.instructions) {
    if (insn.opcode == ORCD_OP_EMBEDDING) {
      CheckTokenIds(*insn.weights[0], ctx.tokens, ctx.n_tokens);
    } else if (insn.opcode == ORCD_OP_POSITION_EMBEDDING) {
      for (int64_t t = 0; t < ctx.n_tokens; ++t)
        CheckLearnedPositions(*insn.weights[0], ctx.Position(t), 1);
    }
  }
}

void Executor::ThrowIfStopRequested() const {
  if (should_stop_ && should_stop_()) throw Error(ErrorCode::kStopped, "run stopped");
}

void Executor::Enqueue(const BoundPhase& bp, ExecContext& ctx, std::vector<uint64_t>& bytes,
                       const std::function<bool()>* should_stop, DeviceExecution* paced) {
  std::atomic<bool> stop_seen{false};
  if (should_stop) {
    ctx.should_stop = should_stop;
    ctx.stop_seen = &stop_seen;
  }
  for (size_t i = 0; i < bp.instructions.size(); ++i) {
    const BoundInstruction& insn = bp.instructions[i];
    if (paced != nullptr) {
      // Device kernels are asynchronous: ask once per layer (at each
      // attention), once the device has caught up to the previous layer.
      if (i > 0 && IsAttention(insn.opcode)) {
        paced->PaceRun();
        if (ctx.Stopping(0)) break;
      }
    } else if (should_stop && i > 0 && ctx.Stopping(0)) {
      break;
    }
    const bool per_token =
        insn.opcode == ORCD_OP_EMBEDDING || insn.opcode == ORCD_OP_POSITION_EMBEDDING;
    ctx.weight_bytes_read = per_token ? insn.weight_bytes * ctx.n_tokens : insn.weight_bytes;
    insn.run(insn, ctx);
    bytes[i] = ctx.weight_bytes_read;
  }
  ctx.should_stop = nullptr;
  ctx.stop_seen = nullptr;
  // Also after the last instruction: pieces of it may have been skipped.
  if (stop_seen.load()) throw Error(ErrorCode::kStopped, "run stopped");
}

std::span<const float> Executor::Run(Phase phase, std::span<const int32_t> tokens, int64_t pos0,
                                     KvCache& kv, bool all_logits) {
  const size_t floats = Execute(phase, tokens, pos0, kv, all_logits);
  if (device_) device_->FinishRun(logits_.data(), floats);
  return {logits_.data(), floats};
}

std::span<const float> Executor::RunStep(Phase phase, const StepInput& step, KvCache& kv) {
  const BoundPhase& bp = plan_.phase(phase);
  const int64_t vocab = bp.vocab;
  if (!step.samples.empty() &&
      (device_ == nullptr || step.samples.size() != step.logit_rows.size()))
    throw Error(ErrorCode::kInternal, "a step's samples need a device and one per logits row");
  const size_t floats = Execute(phase, step.tokens, 0, kv, /*all_logits=*/false, &step);
  // Masks computed while the device evaluated the step (queued, not done).
  for (const SampleRequest* s : step.samples) {
    if (s != nullptr && s->await_allowed) s->await_allowed();
  }
  // The rows whose logits come back: every one, or those not sampled.
  host_rows_.clear();
  sampled_rows_.clear();
  for (size_t i = 0; i < step.logit_rows.size(); ++i) {
    if (step.samples.empty() || step.samples[i] == nullptr) {
      host_rows_.push_back(LogitsOffset(step, i, vocab));
    } else {
      sampled_rows_.push_back({LogitsOffset(step, i, vocab), *step.samples[i]});
    }
  }
  if (device_ && (!host_rows_.empty() || sampled_rows_.empty()))
    device_->FinishRun(logits_.data(), floats);
  sampled_.resize(sampled_rows_.size());
  if (!sampled_rows_.empty()) device_->FinishRunSampleRows(sampled_rows_, vocab, sampled_);
  if (host_rows_.empty()) return {};
  if (bp.logits_rows_selectable && !device_)
    return {logits_.data(), host_rows_.size() * static_cast<size_t>(vocab)};
  // Every row (or, on a device, the span or list of the asked ones) came
  // back: keep the asked ones, in order.
  if (host_rows_.front() == 0 &&
      static_cast<int64_t>(host_rows_.size()) * vocab == static_cast<int64_t>(floats))
    return {logits_.data(), floats};  // every row computed was asked for
  step_logits_.resize(host_rows_.size() * static_cast<size_t>(vocab));
  for (size_t i = 0; i < host_rows_.size(); ++i) {
    std::copy_n(logits_.begin() + host_rows_[i], vocab,
                step_logits_.begin() + static_cast<int64_t>(i) * vocab);
  }
  return step_logits_;
}

int64_t Executor::LogitsOffset(const StepInput& step, size_t i, int64_t vocab) const {
  if (listed_logits_) return static_cast<int64_t>(i) * vocab;
  return (step.logit_rows[i] - first_logit_row_) * vocab;
}

int32_t Executor::RunSample(Phase phase, std::span<const int32_t> tokens, int64_t pos0, KvCache& kv,
                            const SampleRequest& request) {
  if (device_ == nullptr) throw Error(ErrorCode::kInternal, "RunSample needs a device backend");
  const size_t floats = Execute(phase, tokens, pos0, kv, /*all_logits=*/false);
  const int64_t vocab = plan_.phase(phase).vocab;
  if (request.await_allowed) request.await_allowed();
  return device_->FinishRunSample(static_cast<int64_t>(floats) - vocab, vocab, request);
}

int32_t Executor::RunArgmax(Phase phase, std::span<const int32_t> tokens, int64_t pos0,
                            KvCache& kv) {
  const size_t floats = Execute(phase, tokens, pos0, kv, /*all_logits=*/false);
  const int64_t vocab = plan_.phase(phase).vocab;
  const int64_t last_row = static_cast<int64_t>(floats) - vocab;  // rows may not be selectable
  if (device_) return device_->FinishRunArgmax(last_row, vocab);
  return GreedyToken(std::span<const float>(logits_).subspan(static_cast<size_t>(last_row),
                                                             static_cast<size_t>(vocab)));
}

}  // namespace orcd::engine
