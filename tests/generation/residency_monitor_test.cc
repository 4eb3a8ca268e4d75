// The residency check on its own thread (M0-W-1012): once at start, then on
// its timer whether or not /health is polled; the first failure sticks.
#include "host/generation/residency_monitor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace orcd {
namespace {

using namespace std::chrono_literals;

// Polls `done` for up to 5 s (the timer is 5 ms: generous for a loaded CI).
template <class F>
bool Eventually(F done) {
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(ResidencyMonitor, ChecksAtStartThenOnItsTimerAndAFailureSticks) {
  std::atomic<int> calls{0};
  std::atomic<bool> lost{false};
  ResidencyMonitor m(
      [&] {
        ++calls;
        return !lost.load();
      },
      5ms);
  EXPECT_GE(calls.load(), 1) << "no check right after the load";
  EXPECT_TRUE(m.resident());
  ASSERT_TRUE(Eventually([&] { return calls.load() >= 3; })) << "the timer does not check";
  EXPECT_TRUE(m.resident());

  lost = true;
  ASSERT_TRUE(Eventually([&] { return !m.resident(); })) << "a failed check went unnoticed";
  lost = false;  // memory that comes back does not make the worker healthy again
  const int after = calls.load();
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(m.resident());
  EXPECT_EQ(calls.load(), after) << "checks go on after the failure stuck";
}

TEST(ResidencyMonitor, AThrowingCheckIsAFailureAtStart) {
  ResidencyMonitor m([]() -> bool { throw std::runtime_error("cudaPointerGetAttributes failed"); },
                     1h);
  EXPECT_FALSE(m.resident());
  EXPECT_EQ(m.checks(), 1u);
}

TEST(ResidencyMonitor, ZeroIntervalChecksOnlyOnceAndStopsAtOnce) {
  std::atomic<int> calls{0};
  {
    ResidencyMonitor m(
        [&] {
          ++calls;
          return true;
        },
        0ms);
    std::this_thread::sleep_for(20ms);
    EXPECT_TRUE(m.resident());
  }
  EXPECT_EQ(calls.load(), 1);
  // A long timer does not hold up the worker's exit.
  const auto t0 = std::chrono::steady_clock::now();
  {
    ResidencyMonitor m([] { return true; }, 1h);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
}

}  // namespace
}  // namespace orcd
