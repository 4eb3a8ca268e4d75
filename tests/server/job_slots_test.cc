// Accepted jobs up to a capacity; cancel by id among many, idempotent, early
// cancels remembered.
#include "host/server/job_slots.h"

#include <gtest/gtest.h>

namespace orcd {
namespace {

TEST(JobSlots, OneJobAtATimeAtCapacityOne) {
  JobSlots slots;
  auto a = slots.TryAcquire("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(slots.TryAcquire("b"), nullptr);
  slots.Release(a);
  EXPECT_NE(slots.TryAcquire("b"), nullptr);
}

TEST(JobSlots, ManyUpToTheCapacity) {
  JobSlots slots(3);
  auto a = slots.TryAcquire("a");
  auto b = slots.TryAcquire("b");
  auto c = slots.TryAcquire("c");
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(slots.held(), 3);
  EXPECT_EQ(slots.TryAcquire("d"), nullptr) << "past the capacity";
  slots.Release(b);
  slots.Release(b);  // twice: still one place
  EXPECT_EQ(slots.held(), 2);
  EXPECT_NE(slots.TryAcquire("d"), nullptr);
  EXPECT_EQ(slots.TryAcquire("e"), nullptr);
}

TEST(JobSlots, CancelOnlyTheNamedJobAmongManyAndIdempotently) {
  JobSlots slots(4);
  auto a = slots.TryAcquire("a");
  auto b = slots.TryAcquire("b");
  slots.Cancel("other");
  EXPECT_FALSE(a->cancelled());
  EXPECT_EQ(slots.Cancel("a"), JobSlots::CancelOutcome::kRunning);
  slots.Cancel("a");
  EXPECT_TRUE(a->cancelled());
  EXPECT_FALSE(b->cancelled()) << "a cancel ends exactly the named job";
}

TEST(JobSlots, CancelBeforeStartCancelsTheJobWhenItStarts) {
  JobSlots slots;
  slots.Cancel("late");
  auto late = slots.TryAcquire("late");
  ASSERT_NE(late, nullptr);
  EXPECT_TRUE(late->cancelled());
  slots.Release(late);
  auto fresh = slots.TryAcquire("fresh");
  ASSERT_NE(fresh, nullptr);
  EXPECT_FALSE(fresh->cancelled());
}

TEST(JobSlots, CancelForAnEndedJobDoesNotKillALaterJobReusingTheId) {
  JobSlots slots;
  auto first = slots.TryAcquire("reused");
  slots.Release(first);
  EXPECT_EQ(slots.Cancel("reused"), JobSlots::CancelOutcome::kAlreadyEnded);
  auto second = slots.TryAcquire("reused");
  ASSERT_NE(second, nullptr);
  EXPECT_FALSE(second->cancelled()) << "the second run of the id must run";
  EXPECT_EQ(slots.Cancel("reused"), JobSlots::CancelOutcome::kRunning);
  EXPECT_TRUE(second->cancelled());
}

JobSlots::Clock::time_point fake_now{};
JobSlots::Clock::time_point FakeNow() { return fake_now; }

TEST(JobSlots, EarlyCancelsExpire) {
  JobSlots slots;
  slots.set_clock_for_testing(&FakeNow);
  fake_now = JobSlots::Clock::time_point{} + std::chrono::hours(1);
  EXPECT_EQ(slots.Cancel("racing"), JobSlots::CancelOutcome::kRemembered);
  fake_now += JobSlots::kEarlyCancelTtl + std::chrono::seconds(1);
  auto racing = slots.TryAcquire("racing");
  ASSERT_NE(racing, nullptr);
  EXPECT_FALSE(racing->cancelled()) << "a cancel long before the job is stale";
}

}  // namespace
}  // namespace orcd
