// The VRAM residency check (M0-W-1012, WORK-3022) on its own thread: once
// when the monitor starts (right after the model's load) and then every
// `interval` (0: only that once), whether or not anyone polls /health. The
// first failure is logged as an error and sticks: the worker then reports
// unhealthy, refuses new jobs and ends the running one (its owner reads
// resident()).
#ifndef ORCD_HOST_GENERATION_RESIDENCY_MONITOR_H_
#define ORCD_HOST_GENERATION_RESIDENCY_MONITOR_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace orcd {

class ResidencyMonitor {
 public:
  // `check`: true while the model's memory is device memory; a throw counts
  // as false. Called on the constructor's thread first, then on the
  // monitor's own.
  ResidencyMonitor(std::function<bool()> check, std::chrono::milliseconds interval);
  ~ResidencyMonitor();
  ResidencyMonitor(const ResidencyMonitor&) = delete;
  ResidencyMonitor& operator=(const ResidencyMonitor&) = delete;

  bool resident() const { return resident_.load(std::memory_order_acquire); }
  uint64_t checks() const { return checks_.load(std::memory_order_relaxed); }

 private:
  void CheckOnce();
  void Run();

  std::function<bool()> check_;
  std::chrono::milliseconds interval_;
  std::atomic<bool> resident_{true};
  std::atomic<uint64_t> checks_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace orcd

#endif  // ORCD_HOST_GENERATION_RESIDENCY_MONITOR_H_
