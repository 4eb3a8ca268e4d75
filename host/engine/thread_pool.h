// A small persistent thread pool for the CPU adapters: the caller and
// size()-1 workers share each ParallelFor. Tasks are handed out through an
// atomic counter (load balance on noisy VMs); nothing is allocated per call.
// Workers spin briefly between calls (decode issues hundreds of short
// parallel regions per token) and then sleep on a condition variable.
#ifndef ORCD_HOST_ENGINE_THREAD_POOL_H_
#define ORCD_HOST_ENGINE_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace orcd::engine {

class ThreadPool {
 public:
  // n_threads counts the caller; 0 = the machine's hardware threads.
  explicit ThreadPool(int n_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(task, thread) for every task in [0, n_tasks), thread in
  // [0, size()). Returns when all tasks are done. Not reentrant.
  template <class Fn>
  void ParallelFor(int64_t n_tasks, Fn&& fn) {
    using F = std::remove_reference_t<Fn>;
    Run(
        n_tasks, [](void* f, int64_t task, int thread) { (*static_cast<F*>(f))(task, thread); },
        const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  using TaskFn = void (*)(void* closure, int64_t task, int thread);
  void Run(int64_t n_tasks, TaskFn fn, void* closure);
  void WorkerLoop(int thread);
  void Drain(int thread);
  // Starts the next job (or the stop) and wakes sleeping workers.
  void Publish(bool stop);

  std::vector<std::thread> workers_;
  // The current job; published by bumping generation_.
  TaskFn fn_ = nullptr;
  void* closure_ = nullptr;
  int64_t n_tasks_ = 0;
  std::atomic<int64_t> next_task_{0};
  std::atomic<int> busy_workers_{0};
  std::atomic<uint32_t> generation_{0};
  std::atomic<bool> stop_{false};
  std::mutex sleep_mutex_;  // guards the sleep/wake hand-off only
  std::condition_variable wake_;
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_THREAD_POOL_H_
