#include "host/server/job_slot.h"

#include <algorithm>

namespace orcd {

bool JobSlot::TryAcquire(const std::string& job_id) {
  std::lock_guard lock(mu_);
  if (busy_) return false;
  busy_ = true;
  job_id_ = job_id;
  auto it = std::find(early_cancels_.begin(), early_cancels_.end(), job_id);
  const bool cancelled_early = it != early_cancels_.end();
  if (cancelled_early) early_cancels_.erase(it);
  cancel_requested_.store(cancelled_early, std::memory_order_release);
  return true;
}

void JobSlot::Release() {
  std::lock_guard lock(mu_);
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

void JobSlot::Cancel(const std::string& job_id) {
  std::lock_guard lock(mu_);
  if (busy_ && job_id == job_id_) {
    cancel_requested_.store(true, std::memory_order_release);
    return;
  }
  if (std::find(early_cancels_.begin(), early_cancels_.end(), job_id) != early_cancels_.end()) {
    return;
  }
  early_cancels_.push_back(job_id);
  if (early_cancels_.size() > kRememberedCancels) early_cancels_.pop_front();
}

}  // namespace orcd
