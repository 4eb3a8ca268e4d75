// The jobs the worker has accepted (running or waiting for their turn), at
// most `capacity` at once (server.slots + server.queue_depth), and
// cancellation by job id. Cancel is idempotent; a cancel that arrives shortly
// before its job is accepted (the two requests raced) still cancels it; a
// cancel for a job that already ended does nothing, so a later job reusing
// the id runs. Every accepted job with the named id is cancelled.
#ifndef ORCD_HOST_SERVER_JOB_SLOTS_H_
#define ORCD_HOST_SERVER_JOB_SLOTS_H_

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace orcd {

// One accepted job: its id and whether a cancel named it.
struct JobTicket {
  explicit JobTicket(std::string id) : job_id(std::move(id)) {}
  const std::string job_id;
  std::atomic<bool> cancel_requested{false};
  bool cancelled() const { return cancel_requested.load(std::memory_order_acquire); }
};

class JobSlots {
 public:
  using Clock = std::chrono::steady_clock;
  // How long a cancel for a job not (yet) accepted is remembered.
  static constexpr std::chrono::seconds kEarlyCancelTtl{10};

  explicit JobSlots(int capacity = 1) : capacity_(capacity) {}

  // Accepts `job_id`; null when `capacity` jobs are held.
  std::shared_ptr<JobTicket> TryAcquire(const std::string& job_id);
  void Release(const std::shared_ptr<JobTicket>& ticket);
  int held() const;
  int capacity() const { return capacity_; }

  // What a cancel found; the API answers 202 in every case.
  enum class CancelOutcome { kRunning, kAlreadyEnded, kRemembered };
  CancelOutcome Cancel(const std::string& job_id);
  // Cancels every accepted job (shutdown); returns how many.
  int CancelAll();

  // Test hook: the clock the TTL is measured on.
  void set_clock_for_testing(Clock::time_point (*now)()) { now_ = now; }

 private:
  struct EarlyCancel {
    std::string job_id;
    Clock::time_point at;
  };
  static constexpr size_t kRemembered = 1024;
  void DropExpired(Clock::time_point now);

  const int capacity_;
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<JobTicket>> held_;
  std::deque<EarlyCancel> early_cancels_;  // for jobs not (yet) accepted
  std::deque<std::string> ended_;          // recently ended jobs, newest last
  Clock::time_point (*now_)() = &Clock::now;
};

// Holds a job's place for a scope, or until Release().
class JobLease {
 public:
  JobLease(JobSlots& slots, std::shared_ptr<JobTicket> ticket)
      : slots_(slots), ticket_(std::move(ticket)) {}
  ~JobLease() { Release(); }
  JobLease(const JobLease&) = delete;
  JobLease& operator=(const JobLease&) = delete;

  void Release() {
    if (ticket_) slots_.Release(ticket_);
    ticket_.reset();
  }

 private:
  JobSlots& slots_;
  std::shared_ptr<JobTicket> ticket_;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_JOB_SLOTS_H_
