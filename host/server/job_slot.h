// One inference at a time: the slot a job must hold to run, and cancellation
// by job id (idempotent; a cancel that arrives before its job starts still
// cancels it).
#ifndef ORCD_HOST_SERVER_JOB_SLOT_H_
#define ORCD_HOST_SERVER_JOB_SLOT_H_

#include <atomic>
#include <deque>
#include <mutex>
#include <string>

namespace orcd {

class JobSlot {
 public:
  // Takes the slot for `job_id`; false when another job holds it.
  bool TryAcquire(const std::string& job_id);
  void Release();
  bool busy() const;
  std::string current_job() const;

  // Marks `job_id` cancelled. Always succeeds (the API answers 202).
  void Cancel(const std::string& job_id);
  // Polled by the running job between tokens.
  bool cancel_requested() const { return cancel_requested_.load(std::memory_order_acquire); }

 private:
  static constexpr size_t kRememberedCancels = 1024;
  mutable std::mutex mu_;
  bool busy_ = false;
  std::string job_id_;
  std::atomic<bool> cancel_requested_{false};
  std::deque<std::string> early_cancels_;  // cancels for jobs not (yet) running
};

// Holds the slot for a scope.
class JobSlotLease {
 public:
  explicit JobSlotLease(JobSlot& slot) : slot_(slot) {}
  ~JobSlotLease() { slot_.Release(); }
  JobSlotLease(const JobSlotLease&) = delete;
  JobSlotLease& operator=(const JobSlotLease&) = delete;

 private:
  JobSlot& slot_;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_JOB_SLOT_H_
