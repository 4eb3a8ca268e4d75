// State shared by the HTTP handlers and the main thread, including the
// worker's lifecycle phase. The HTTP server runs from the start, so /health
// reports "starting" (with load progress) before a model exists.
#ifndef ORCD_HOST_SERVER_WORKER_STATE_H_
#define ORCD_HOST_SERVER_WORKER_STATE_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "host/generation/inference_service.h"
#include "host/server/job_slots.h"
#include "host/server/metrics.h"
#include "host/server/worker_config.h"

namespace orcd {

// The spec's worker states (WORK-3015) less "busy", which is kReady with
// every slot taken. Transitions: starting -> ready (model loaded and, with a
// callback URL, the pool manager acknowledged it) | failed; ready ->
// draining (SIGTERM, /shutdown); any -> failed (a fatal error).
enum class WorkerPhase { kStarting, kReady, kDraining, kFailed };

struct WorkerState {
  explicit WorkerState(WorkerConfig c)
      : config(std::move(c)), jobs(config.slots + config.queue_depth) {}

  const WorkerConfig config;
  // Set once by PublishService; read only after model_loaded() is true.
  InferenceService* service = nullptr;
  // Accepted jobs: server.slots generating, up to server.queue_depth more
  // waiting their turn; past that 503 WORKER_BUSY.
  JobSlots jobs;
  Metrics metrics;
  const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::atomic<int> load_percent{0};
  std::atomic<bool> shutting_down{false};

  void PublishService(InferenceService* s) {
    service = s;
    model_loaded_.store(true, std::memory_order_release);
  }
  bool model_loaded() const { return model_loaded_.load(std::memory_order_acquire); }
  WorkerPhase phase() const { return phase_.load(std::memory_order_acquire); }
  // kReady needs PublishService first.
  void SetPhase(WorkerPhase p) { phase_.store(p, std::memory_order_release); }
  // True when /execute and /v1/* may run a job.
  bool accepting() const {
    return phase() == WorkerPhase::kReady && !shutting_down && model_loaded() && !model_lost();
  }
  // The loaded model's weights left device memory (the residency check) or
  // a device error broke the context: the worker serves no more jobs.
  bool model_lost() const { return model_loaded() && !service->Resident(); }
  // Why a new job is refused now (null: it is not), one answer for /execute
  // and the OpenAI endpoints, each in its own error shape.
  struct JobRefusal {
    std::string_view code;         // /execute's: SHUTTING_DOWN, VRAM_RESIDENCY_LOST, NOT_READY
    std::string_view openai_code;  // the same in OpenAI's lower case
    std::string_view metric;       // the rejected counter's reason
    std::string message;
    int retry_after_s = 0;  // 0: no Retry-After (this worker will not take it later)
  };
  std::optional<JobRefusal> Refusal() const {
    if (accepting()) return std::nullopt;
    if (shutting_down) {
      return JobRefusal{"SHUTTING_DOWN", "shutting_down", "shutting_down",
                        "the worker is draining and accepts no new jobs", 5};
    }
    if (model_lost()) {
      return JobRefusal{"VRAM_RESIDENCY_LOST", "vram_residency_lost", "not_ready",
                        "the model's weights are no longer resident in device memory; this "
                        "worker takes no more jobs",
                        0};
    }
    return JobRefusal{"NOT_READY", "not_ready", "not_ready",
                      "the worker is " + std::string(StatusName()) + ", not ready for jobs", 1};
  }
  // "starting" | "ready" | "busy" | "draining" | "failed".
  std::string_view StatusName() const;
  // Jobs accepted beyond the generating slots wait; busy = every slot taken.
  int slots_busy() const { return std::min(jobs.held(), config.slots); }
  int jobs_waiting() const { return std::max(0, jobs.held() - config.slots); }
  bool busy() const { return jobs.held() >= config.slots; }
  std::string BusyMessage() const {
    return config.queue_depth == 0 && config.slots == 1
               ? std::string("another inference is running")
               : "all " + std::to_string(config.slots) + " slots and " +
                     std::to_string(config.queue_depth) + " queue places are taken";
  }

  // POST /shutdown and SIGTERM: stop accepting, wake the main thread.
  void RequestShutdown() {
    shutting_down = true;
    WorkerPhase expected = WorkerPhase::kReady;
    phase_.compare_exchange_strong(expected, WorkerPhase::kDraining);
    std::lock_guard lock(mu);
    cv.notify_all();
  }
  std::mutex mu;
  std::condition_variable cv;

 private:
  std::atomic<WorkerPhase> phase_{WorkerPhase::kStarting};
  std::atomic<bool> model_loaded_{false};
};

inline std::string_view WorkerState::StatusName() const {
  switch (phase()) {
    case WorkerPhase::kStarting:
      return shutting_down ? "draining" : "starting";
    case WorkerPhase::kReady:
      if (model_lost()) return "failed";
      return busy() ? "busy" : "ready";
    case WorkerPhase::kDraining:
      return "draining";
    case WorkerPhase::kFailed:
      return "failed";
  }
  return "failed";
}

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_WORKER_STATE_H_
