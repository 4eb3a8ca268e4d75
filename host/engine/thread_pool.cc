#include "host/engine/thread_pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ORCD_CPU_RELAX() _mm_pause()
#else
#define ORCD_CPU_RELAX() std::this_thread::yield()
#endif

namespace orcd::engine {
namespace {

// ~50-100 us of spinning before a worker sleeps: long enough to bridge the
// serial gaps between the parallel regions of one decode step.
constexpr int kSpinIterations = 20000;

}  // namespace

ThreadPool::ThreadPool(int n_threads) {
  if (n_threads <= 0) n_threads = static_cast<int>(std::thread::hardware_concurrency());
  if (n_threads <= 0) n_threads = 1;
  workers_.reserve(static_cast<size_t>(n_threads - 1));
  for (int t = 1; t < n_threads; ++t) workers_.emplace_back([this, t] { WorkerLoop(t); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (std::thread& w : workers_) w.join();
}

void ThreadPool::Drain(int thread) {
  for (;;) {
    const int64_t task = next_task_.fetch_add(1, std::memory_order_relaxed);
    if (task >= n_tasks_) return;
    fn_(closure_, task, thread);
  }
}

void ThreadPool::Run(int64_t n_tasks, TaskFn fn, void* closure) {
  if (n_tasks <= 0) return;
  if (workers_.empty() || n_tasks == 1) {
    for (int64_t t = 0; t < n_tasks; ++t) fn(closure, t, 0);
    return;
  }
  fn_ = fn;
  closure_ = closure;
  n_tasks_ = n_tasks;
  next_task_.store(0, std::memory_order_relaxed);
  busy_workers_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  Drain(0);
  while (busy_workers_.load(std::memory_order_acquire) != 0) ORCD_CPU_RELAX();
}

void ThreadPool::WorkerLoop(int thread) {
  uint32_t seen = generation_.load(std::memory_order_acquire);
  for (;;) {
    int spins = 0;
    uint32_t now = generation_.load(std::memory_order_acquire);
    while (now == seen) {
      if (++spins < kSpinIterations) {
        ORCD_CPU_RELAX();
      } else {
        generation_.wait(seen, std::memory_order_acquire);
      }
      now = generation_.load(std::memory_order_acquire);
    }
    seen = now;
    if (stop_.load()) return;
    Drain(thread);
    busy_workers_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

}  // namespace orcd::engine
