// The scheduler's record of one request's sequence (BatchScheduler::Sequence),
// shared by its source files: batch_scheduler.cc (admission, steps,
// preemption) and answer_fill.cc (caching a finished answer). Internal to
// host/generation.
#ifndef ORCD_HOST_GENERATION_SCHEDULED_SEQUENCE_H_
#define ORCD_HOST_GENERATION_SCHEDULED_SEQUENCE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include "host/engine/device_execution.h"
#include "host/generation/batch_scheduler.h"

namespace orcd {

// One request's sequence. Guarded by the scheduler's mu_, except where said.
struct BatchScheduler::Sequence {
  int engine_seq = -1;  // >= 0 while admitted
  // The tokens asked for (the request thread waits until they are
  // evaluated; it does not touch them meanwhile, so the loop reads them
  // without the lock), how many are prompt tokens, and how many are done.
  std::vector<int32_t> pending;
  int64_t prompt_tokens = 0;
  size_t fed = 0;
  bool asked = false;  // pending holds work
  bool ready = false;  // the work is done: logits or error
  std::exception_ptr error;
  std::vector<float> logits;
  // Sampled where the logits are (a device that samples): the request and,
  // once ready, the chosen id instead of the logits.
  bool sampling = false;
  engine::SampleRequest sample;
  int32_t token = -1;
  // Its request thread is still computing sample.allowed (a grammar's mask,
  // while the step is evaluated): the step waits on mask_cv before sampling.
  bool mask_pending = false;
  std::condition_variable mask_cv;
  std::function<bool()> stop_check;
  std::atomic<int64_t> length{0};  // positions evaluated (read by its own thread)
  // Every token evaluated so far, of which the first history_prompt are
  // prompt tokens: what a preempted sequence recomputes. `evaluated` counts
  // the positions its engine sequence holds now.
  std::vector<int32_t> history;
  int64_t history_prompt = 0;
  int64_t evaluated = 0;
  bool recompute = false;  // preempted: replay the history before the pending tokens
  // Its request ended and (prefix caching) its generated tokens are being
  // evaluated again as prompt tokens, so that the conversation's next turn
  // finds its answer cached (StartFill). Nobody waits for it but that next
  // turn (ContinuesAFill); it is the first to go when another request needs
  // its engine sequence or blocks.
  bool fill = false;
  uint64_t cache_salt = 0;
  std::chrono::steady_clock::time_point opened = std::chrono::steady_clock::now();
  std::atomic<double> queued_ms{-1};  // set at admission
  // Prompt tokens the prefix cache held at its first admission (the usage's
  // cached_tokens; a preempted sequence recomputes, but its answer says
  // what the request found).
  std::atomic<int64_t> cached_tokens{0};
  std::condition_variable cv;
};

}  // namespace orcd

#endif  // ORCD_HOST_GENERATION_SCHEDULED_SEQUENCE_H_
