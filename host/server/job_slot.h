// One inference at a time: the slot a job must hold to run, and cancellation
// by job id. Idempotent; a cancel that arrives shortly before its job starts
// (the two requests raced) still cancels it; a cancel for a job that already
// ended does nothing, so a later job reusing the id runs.
#ifndef ORCD_HOST_SERVER_JOB_SLOT_H_
#define ORCD_HOST_SERVER_JOB_SLOT_H_

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <string>

namespace orcd {

class JobSlot {
 public:
  using Clock = std::chrono::steady_clock;
  // How long a cancel for a job not (yet) running is remembered.
  static constexpr std::chrono::seconds kEarlyCancelTtl{10};

  // Takes the slot for `job_id`; false when another job holds it.
  bool TryAcquire(const std::string& job_id);
  void Release();
  bool busy() const;
  std::string current_job() const;

  // What a cancel found; the API answers 202 in every case.
  enum class CancelOutcome { kRunning, kAlreadyEnded, kRemembered };
  CancelOutcome Cancel(const std::string& job_id);
  // Polled by the running job.
  bool cancel_requested() const { return cancel_requested_.load(std::memory_order_acquire); }

  // Test hook: the clock the TTL is measured on.
  void set_clock_for_testing(Clock::time_point (*now)()) { now_ = now; }

 private:
  struct EarlyCancel {
    std::string job_id;
    Clock::time_point at;
  };
  static constexpr size_t kRemembered = 1024;
  void DropExpired(Clock::time_point now);

  mutable std::mutex mu_;
  bool busy_ = false;
  std::string job_id_;
  std::atomic<bool> cancel_requested_{false};
  std::deque<EarlyCancel> early_cancels_;  // for jobs not (yet) running
  std::deque<std::string> ended_;          // recently ended jobs, newest last
  Clock::time_point (*now_)() = &Clock::now;
};

// Holds the slot for a scope, or until Release().
class JobSlotLease {
 public:
  explicit JobSlotLease(JobSlot& slot) : slot_(slot) {}
  ~JobSlotLease() { Release(); }
  JobSlotLease(const JobSlotLease&) = delete;
  JobSlotLease& operator=(const JobSlotLease&) = delete;

  void Release() {
    if (held_) slot_.Release();
    held_ = false;
  }

 private:
  JobSlot& slot_;
  bool held_ = true;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_JOB_SLOT_H_
