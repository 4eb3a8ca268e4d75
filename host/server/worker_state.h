// State shared by the HTTP handlers and the main thread.
#ifndef ORCD_HOST_SERVER_WORKER_STATE_H_
#define ORCD_HOST_SERVER_WORKER_STATE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "host/server/inference_service.h"
#include "host/server/job_slot.h"
#include "host/server/metrics.h"
#include "host/server/worker_config.h"

namespace orcd {

struct WorkerState {
  WorkerState(WorkerConfig c, InferenceService* s) : config(std::move(c)), service(s) {}

  const WorkerConfig config;
  InferenceService* const service;
  JobSlot slot;
  Metrics metrics;
  const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::atomic<bool> ready{false};
  std::atomic<bool> shutting_down{false};

  // POST /shutdown wakes the main thread through this.
  void RequestShutdown() {
    shutting_down = true;
    std::lock_guard lock(mu);
    cv.notify_all();
  }
  std::mutex mu;
  std::condition_variable cv;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_WORKER_STATE_H_
