// What the executor needs from a device backend: its loop stays the same, but
// the register arena, the logits and the per-step values live in device
// memory. A run is BeginRun (tokens and positions to the device), the
// adapters (or a replayed graph of them), then FinishRun (the logits back to
// the host; the one wait).
#ifndef ORCD_HOST_ENGINE_DEVICE_EXECUTION_H_
#define ORCD_HOST_ENGINE_DEVICE_EXECUTION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "host/sampling/sampler.h"

namespace orcd::engine {

// One sampling step's parameters (host/sampling/sampler.h's, resolved):
// `uniform` is the draw the job's seeded generator made for this step and
// `penalized` the distinct tokens generated so far.
struct SampleRequest {
  double temperature = 1.0;  // <= 0: greedy after the penalty
  double repetition_penalty = 1.0;
  int64_t top_k = 0;
  double top_p = 1.0;
  double min_p = 0.0;
  double uniform = 0.0;
  std::span<const int32_t> penalized;
  // top_logprobs >= 0: the chosen token's log-probabilities and its
  // top_logprobs alternatives' are written to *logprobs (SampleDraw's).
  int top_logprobs = -1;
  TokenLogprobs* logprobs = nullptr;
  // Structured output: the ids the pick may be, as bits (SampleDraw's).
  std::span<const uint64_t> allowed;
  // Set when `allowed` is still being computed (by the job, while the step
  // is evaluated): the stepping thread calls it once the step's kernels are
  // queued and reads `allowed` after it returns.
  std::function<void()> await_allowed;

  static SampleRequest From(const SampleDraw& d) {
    return {d.config->temperature,
            d.config->repetition_penalty,
            d.config->top_k,
            d.config->top_p,
            d.config->min_p,
            d.uniform,
            d.penalized,
            d.logprobs != nullptr ? d.top_logprobs : -1,
            d.logprobs,
            d.allowed,
            {}};
  }
};

// A logits row of the run to sample on the device: `offset` floats into the
// run's logits, and how.
struct SampledRow {
  int64_t offset = 0;
  SampleRequest request;
};

class DeviceExecution {
 public:
  virtual ~DeviceExecution() = default;
  virtual float* arena() = 0;
  // Device logits with room for `floats` values (grown only when a caller
  // first asks for more rows; throws kOutOfMemory when the device cannot).
  virtual float* logits(size_t floats) = 0;
  // pos0: the position of a run of one sequence's tokens (a backend may be
  // told otherwise beforehand: CudaBackend::SetStepRows).
  virtual void BeginRun(std::span<const int32_t> tokens, int64_t pos0) = 0;
  virtual void FinishRun(float* host_logits, size_t floats) = 0;
  // Ends a run with the argmax of the device logits [row_offset, +vocab) read back
  // instead of the logits (greedy decoding: 4 bytes cross, not the vocabulary).
  virtual int32_t FinishRunArgmax(int64_t row_offset, int64_t vocab) = 0;
  // Ends a run by sampling logits rows on the device, each with its own
  // request (only the ids are read back: out[i] for rows[i]). A row's pick
  // does not depend on the other rows. May follow FinishRun (whose copy
  // then holds the rows before any penalty).
  virtual void FinishRunSampleRows(std::span<const SampledRow> rows, int64_t vocab,
                                   std::span<int32_t> out) = 0;
  int32_t FinishRunSample(int64_t row_offset, int64_t vocab, const SampleRequest& r) {
    const SampledRow row{row_offset, r};
    int32_t token = -1;
    FinishRunSampleRows({&row, 1}, vocab, {&token, 1});
    return token;
  }

  // Graphs of a step (CUDA graphs), between BeginRun and FinishRun:
  // ReplayStep is true when a graph recorded for this kind of step was
  // enqueued in place of the instructions. Otherwise CaptureStep says whether
  // to record the instructions about to be enqueued; EndCaptureStep then
  // enqueues what was recorded, AbortCaptureStep drops it after a failure.
  // `decode_rows` is the rows of a decode step (a generated token of each of
  // that many sequences), the only kind recorded; 0 for any other run.
  virtual bool ReplayStep(int64_t /*decode_rows*/) { return false; }
  // Called once per layer of a long run that may be stopped: waits until the
  // device has reached the previous call's place in the queue, so the stop
  // check made next lands within about a layer's device time (the host
  // enqueues a whole pass in a fraction of its device time) while the device
  // keeps a layer of work queued.
  virtual void PaceRun() {}
  virtual bool CaptureStep(int64_t /*decode_rows*/) { return false; }
  virtual void EndCaptureStep() {}
  virtual void AbortCaptureStep() {}
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_DEVICE_EXECUTION_H_
