// The one owner of an engine serving many sequences (continuous batching). Each request runs its
// own generation loop (GenerateTokens) on its own thread against a LogitSource from OpenSequence();
// the scheduler's thread gathers whatever those sequences ask for into one engine step: one token
// for every decoding sequence plus chunks of newcomers' prompts, at most max_batched_tokens in all
// and beside decoding sequences only the prompt tokens that fit step_time_target (step_cost.h),
// so a long prompt is prefilled between the others' decode steps instead of stalling them. Each
// request samples (on a device that samples: asks the step to, and every asked row of a step is
// sampled there in one launch), checks its stop strings and writes to its client on its own
// thread: a slow client only delays its own next token.
//
// Admission: a sequence waits (FIFO) until the engine has a sequence free and
// the KV pool has blocks for its prompt. Blocks are then taken as it grows;
// when the pool runs out, the most recently admitted sequence is preempted:
// its blocks are freed and it waits, first in line, to recompute its tokens
// (bit for bit the same: the engine's batch invariance), so no admitted
// request fails for lack of blocks and no other is disturbed. A request that
// alone exceeds the pool is refused when opened. Cancel, deadline and client-gone end one sequence:
// its stop check is asked before each of its steps, and its blocks are freed when its LogitSource
// is destroyed.
#ifndef ORCD_HOST_GENERATION_BATCH_SCHEDULER_H_
#define ORCD_HOST_GENERATION_BATCH_SCHEDULER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "host/engine/engine.h"
#include "host/generation/inference_service.h"
#include "host/generation/step_cost.h"
#include "host/generation/token_generator.h"

namespace orcd {

struct SchedulerOptions {
  // Tokens one step evaluates at most (decode tokens + prompt chunks).
  int64_t max_batched_tokens = 512;
  // A step takes another job's prompt chunk only while it holds fewer
  // prompt tokens than this (mixed_step.h): waiting prompts go one after
  // another, short ones still together.
  int64_t prompt_batch_tokens = 32;
  // After a step, how long the next one waits for the sequences of the last
  // one to ask again (they sample and stream on their own threads), so that
  // they share steps instead of alternating.
  std::chrono::microseconds gather{3000};
  // The CUDA backend's steps: a sequence's part of a step is prompt tokens
  // or one generated token, never both (Engine::Step); false: any tokens
  // (the CPU backend).
  bool one_kind_per_part = false;
  // Prefix caching: a finished request's answer is evaluated again as prompt
  // tokens and cached for the conversation's next turn (Sequence::fill).
  bool cache_answers = true;
  // A step that carries generated tokens takes only the prompt tokens that
  // fit this time beside them, by the step times measured so far
  // (step_cost.h), and at least min_prompt_chunk: the longest a newcomer's
  // prompt holds up the others' next token. 0: no bound but the budget.
  std::chrono::microseconds step_time_target{0};
  // Below this a prompt chunk's per-call costs (a weight panel unpacked per
  // GEMM call) would slow the prompt more than the bound is worth.
  int64_t min_prompt_chunk = 16;
};

class BatchScheduler {
 public:
  // `engine` must outlive the scheduler, and nobody else may use it
  // meanwhile.
  BatchScheduler(engine::Engine& engine, SchedulerOptions options);
  ~BatchScheduler();
  BatchScheduler(const BatchScheduler&) = delete;
  BatchScheduler& operator=(const BatchScheduler&) = delete;

  // A sequence for one request that will hold at most `positions` positions
  // (prompt + generated). Throws Error(kInvalidArgument) when that alone
  // exceeds the KV pool. Its Prefill/Decode block until the step that evaluated them.
  // At admission its prompt maps the blocks the engine's prefix cache holds
  // for it under `cache_salt` (Engine::MatchPrefix) and prefills the rest.
  std::unique_ptr<LogitSource> OpenSequence(int64_t positions, uint64_t cache_salt = 0);

  // running, waiting, the KV pool and the step counters (ServingStats).
  ServingStats stats() const;

 private:
  struct Sequence;
  class Source;

  // Blocks until `seq`'s tokens were evaluated; returns its logits row, or
  // with `sample` (a device that samples) sets *token to the id picked
  // there and returns nothing. `allowed_later`: the sample's allowed-id
  // bits, computed on this thread once the tokens are handed over (the step
  // waits for them before it samples).
  std::span<const float> Evaluate(
      Sequence& seq, std::span<const int32_t> tokens, int64_t prompt_tokens,
      const engine::SampleRequest* sample = nullptr, int32_t* token = nullptr,
      const std::function<std::span<const uint64_t>()>& allowed_later = nullptr);
  void Close(const std::shared_ptr<Sequence>& seq);
  void Loop();
  // With mu_ held: frees closed sequences (or starts caching their answer),
  // admits waiting ones in order.
  void CloseAndAdmit();
  // With mu_ held: a closed sequence that generated becomes a fill (see
  // Sequence::fill) when prefix caching is on and its answer reaches past a
  // block boundary; false: close it.
  bool StartFill(Sequence& seq);
  // With mu_ held: whether `seq`'s prompt begins with the whole sequence of
  // a running fill (the conversation's previous turn and its answer).
  bool ContinuesAFill(const Sequence& seq) const;
  // With mu_ held: ends the latest fill at running_[from] or later; false
  // when none runs there.
  bool DropFill(size_t from = 0);
  // Positions `seq` holds once its pending tokens are evaluated.
  static int64_t Needed(const Sequence& seq);
  // At admission to engine sequence `id`: the prompt's cached prefix mapped
  // (counted as evaluated), and undone when the admission fails.
  int64_t MapCachedPrefix(Sequence& seq, int id);
  static void UnmapCachedPrefix(Sequence& seq, int64_t cached);
  // With mu_ held: the KV pool's figures into stats_.
  void UpdatePoolStats();
  // A preempted sequence's pending tokens become its history plus them.
  static void ReplayHistory(Sequence& seq);
  // Reserves blocks for running_[index], preempting the latest admissions
  // (itself when it is the latest) while the pool is short.
  enum class Grow { kReserved, kPreempted, kCannotFit };
  Grow ReserveOrPreempt(size_t index);
  // Frees running_[index]'s blocks and puts it first in line to recompute.
  void Preempt(size_t index);
  // With mu_ held: ends the wait (kStopped, `why`) of every asked sequence,
  // running or waiting, that `stop` picks.
  void StopAsked(const std::function<bool(const Sequence&)>& stop, const char* why);
  // With mu_ held: ends the sequence's wait with `error`.
  static void Fail(Sequence& seq, std::exception_ptr error);
  bool HasWork() const;
  bool AllRunningAsked() const;
  // Runs one step over `parts`; on an engine error, each part alone, so that
  // one sequence's failure reaches only that sequence.
  void RunStep(std::vector<std::shared_ptr<Sequence>>& seqs, std::vector<engine::StepPart>& parts);

  engine::Engine& engine_;
  const SchedulerOptions options_;
  const int64_t vocab_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;  // the loop waits here
  std::deque<std::shared_ptr<Sequence>> waiting_;
  // The first waiting request continues a fill (ContinuesAFill): fills are
  // then evaluated as prompts, not as background work (mixed_step.h).
  bool fill_awaited_ = false;
  std::vector<std::shared_ptr<Sequence>> running_;  // admission order
  std::vector<std::shared_ptr<Sequence>> closing_;
  ServingStats stats_;
  StepCostModel step_cost_;  // the steps' times, for step_time_target
  uint64_t preemptions_ = 0;
  uint64_t changes_ = 0;  // sequences asking or closing: what may unblock the loop
  // The step's parts (mixed_step.h).
  void GatherStep(std::vector<std::shared_ptr<Sequence>>& seqs,
                  std::vector<engine::StepPart>& parts);
  // n tokens of the sequence's prompt, or fewer so that the step ends at the
  // engine's PromptStop (a copy of sliding windows for the next request).
  int64_t UpToPromptStop(const Sequence& seq, int64_t n) const;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace orcd

#endif  // ORCD_HOST_GENERATION_BATCH_SCHEDULER_H_
