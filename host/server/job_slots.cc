#include "host/server/job_slots.h"

#include <algorithm>

namespace orcd {

void JobSlots::DropExpired(Clock::time_point now) {
  while (!early_cancels_.empty() && now - early_cancels_.front().at > kEarlyCancelTtl) {
    early_cancels_.pop_front();
  }
}

std::shared_ptr<JobTicket> JobSlots::TryAcquire(const std::string& job_id) {
  std::lock_guard lock(mu_);
  if (static_cast<int>(held_.size()) >= capacity_) return nullptr;
  auto ticket = std::make_shared<JobTicket>(job_id);
  DropExpired(now_());
  auto it = std::find_if(early_cancels_.begin(), early_cancels_.end(),
                         [&](const EarlyCancel& c) { return c.job_id == job_id; });
  if (it != early_cancels_.end()) {
    early_cancels_.erase(it);
    ticket->cancel_requested = true;
  }
  // The id runs again: a cancel from now on is for this run.
  ended_.erase(std::remove(ended_.begin(), ended_.end(), job_id), ended_.end());
  held_.push_back(ticket);
  return ticket;
}

void JobSlots::Release(const std::shared_ptr<JobTicket>& ticket) {
  std::lock_guard lock(mu_);
  const auto it = std::find(held_.begin(), held_.end(), ticket);
  if (it == held_.end()) return;
  held_.erase(it);
  ended_.push_back(ticket->job_id);
  if (ended_.size() > kRemembered) ended_.pop_front();
}

int JobSlots::held() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(held_.size());
}

int JobSlots::CancelAll() {
  std::lock_guard lock(mu_);
  for (const auto& ticket : held_) ticket->cancel_requested.store(true, std::memory_order_release);
  return static_cast<int>(held_.size());
}

JobSlots::CancelOutcome JobSlots::Cancel(const std::string& job_id) {
  std::lock_guard lock(mu_);
  bool found = false;
  for (const auto& ticket : held_) {
    if (ticket->job_id != job_id) continue;
    ticket->cancel_requested.store(true, std::memory_order_release);
    found = true;
  }
  if (found) return CancelOutcome::kRunning;
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
