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
  Publish(/*stop=*/true);
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
  Publish(/*stop=*/false);
  Drain(0);
  // Spin, then yield: on an oversubscribed machine a descheduled worker would
  // otherwise cost the caller its whole time slice.
  for (int spins = 0; busy_workers_.load(std::memory_order_acquire) != 0; ++spins) {
    if (spins < kSpinIterations) {
      ORCD_CPU_RELAX();
    } else {
      std::this_thread::yield();
    }
  }
}

// The bump happens under the mutex a sleeping worker checks its predicate
// under, so a wake-up cannot be lost between its check and its sleep.
void ThreadPool::Publish(bool stop) {
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    if (stop) stop_.store(true);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
}

void ThreadPool::WorkerLoop(int thread) {
  // The generation at construction (0), not a fresh load: a worker that
  // starts after the first Run() was published must still take part in it,
  // or Run() waits for it forever.
  uint32_t seen = 0;
  for (;;) {
    int spins = 0;
    uint32_t now = generation_.load(std::memory_order_acquire);
    while (now == seen) {
      if (++spins < kSpinIterations) {
        ORCD_CPU_RELAX();
      } else {
        std::unique_lock<std::mutex> lock(sleep_mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
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
