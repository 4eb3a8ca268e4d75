#include "host/generation/residency_monitor.h"

#include <exception>
#include <string>

#include "host/common/logger.h"

namespace orcd {

ResidencyMonitor::ResidencyMonitor(std::function<bool()> check, std::chrono::milliseconds interval)
    : check_(std::move(check)), interval_(interval) {
  CheckOnce();
  if (interval_.count() > 0 && resident()) thread_ = std::thread([this] { Run(); });
}

ResidencyMonitor::~ResidencyMonitor() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ResidencyMonitor::CheckOnce() {
  bool ok = false;
  std::string why = "weights are not device memory";
  try {
    ok = check_();
  } catch (const std::exception& e) {
    why = e.what();
  }
  checks_.fetch_add(1, std::memory_order_relaxed);
  if (ok) return;
  resident_.store(false, std::memory_order_release);
  LogError("residency",
           "model weights are no longer resident in device memory; the worker reports "
           "unhealthy and takes no more jobs",
           {{"reason", why}});
}

void ResidencyMonitor::Run() {
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, interval_, [&] { return stop_; })) {
    lock.unlock();
    CheckOnce();
    lock.lock();
    if (!resident()) break;  // sticks: nothing more to learn
  }
}

}  // namespace orcd
