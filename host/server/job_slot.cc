#include "host/server/job_slot.h"

#include <algorithm>

namespace orcd {

void JobSlot::DropExpired(Clock::time_point now) {
  while (!early_cancels_.empty() && now - early_cancels_.front().at > kEarlyCancelTtl) {
    early_cancels_.pop_front();
  }
}

bool JobSlot::TryAcquire(const std::string& job_id) {
  std::lock_guard lock(mu_);
  if (busy_) return false;
  busy_ = true;
  job_id_ = job_id;
  DropExpired(now_());
  auto it = std::find_if(early_cancels_.begin(), early_cancels_.end(),
                         [&](const EarlyCancel& c) { return c.job_id == job_id; });
  const bool cancelled_early = it != early_cancels_.end();
  if (cancelled_early) early_cancels_.erase(it);
  // The id runs again: a cancel from now on is for this run.
  ended_.erase(std::remove(ended_.begin(), ended_.end(), job_id), ended_.end());
  cancel_requested_.store(cancelled_early, std::memory_order_release);
  return true;
}

void JobSlot::Release() {
  std::lock_guard lock(mu_);
  ended_.push_back(job_id_);
  if (ended_.size() > kRemembered) ended_.pop_front();
  busy_ = false;
  job_id_.clear();
  cancel_requested_.store(false, std::memory_order_release);
}

bool JobSlot::busy() const {
  std::lock_guard lock(mu_);
  return busy_;
}

std::string JobSlot::current_job() const {
  std::lock_guard lock(mu_);
  return job_id_;
}

JobSlot::CancelOutcome JobSlot::Cancel(const std::string& job_id) {
  std::lock_guard lock(mu_);
  if (busy_ && job_id == job_id_) {
    cancel_requested_.store(true, std::memory_order_release);
    return CancelOutcome::kRunning;
  }
  if (std::find(ended_.begin(), ended_.end(), job_id) != ended_.end()) {
    return CancelOutcome::kAlreadyEnded;
  }
  const Clock::time_point now = now_();
  DropExpired(now);
  auto it = std::find_if(early_cancels_.begin(), early_cancels_.end(),
                         [&](const EarlyCancel& c) { return c.job_id == job_id; });
  if (it == early_cancels_.end()) {
    early_cancels_.push_back({job_id, now});
    if (early_cancels_.size() > kRemembered) early_cancels_.pop_front();
  }
  return CancelOutcome::kRemembered;
}

}  // namespace orcd
