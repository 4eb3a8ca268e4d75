// One job at a time; cancel by id, idempotent, early cancels remembered.
#include "host/server/job_slot.h"

#include <gtest/gtest.h>

namespace orcd {
namespace {

TEST(JobSlot, OneJobAtATime) {
  JobSlot slot;
  ASSERT_TRUE(slot.TryAcquire("a"));
  EXPECT_TRUE(slot.busy());
  EXPECT_FALSE(slot.TryAcquire("b"));
  EXPECT_EQ(slot.current_job(), "a");
  slot.Release();
  EXPECT_TRUE(slot.TryAcquire("b"));
}

TEST(JobSlot, CancelOnlyTheNamedJobAndIdempotently) {
  JobSlot slot;
  ASSERT_TRUE(slot.TryAcquire("a"));
  slot.Cancel("other");
  EXPECT_FALSE(slot.cancel_requested());
  slot.Cancel("a");
  slot.Cancel("a");
  EXPECT_TRUE(slot.cancel_requested());
  slot.Release();
  EXPECT_FALSE(slot.cancel_requested());
}

TEST(JobSlot, CancelBeforeStartCancelsTheJobWhenItStarts) {
  JobSlot slot;
  slot.Cancel("late");
  ASSERT_TRUE(slot.TryAcquire("late"));
  EXPECT_TRUE(slot.cancel_requested());
  slot.Release();
  ASSERT_TRUE(slot.TryAcquire("fresh"));
  EXPECT_FALSE(slot.cancel_requested());
}

TEST(JobSlot, CancelForAnEndedJobDoesNotKillALaterJobReusingTheId) {
  JobSlot slot;
  ASSERT_TRUE(slot.TryAcquire("reused"));
  slot.Release();
  EXPECT_EQ(slot.Cancel("reused"), JobSlot::CancelOutcome::kAlreadyEnded);
  ASSERT_TRUE(slot.TryAcquire("reused"));
  EXPECT_FALSE(slot.cancel_requested()) << "the second run of the id must run";
  EXPECT_EQ(slot.Cancel("reused"), JobSlot::CancelOutcome::kRunning);
  EXPECT_TRUE(slot.cancel_requested());
  slot.Release();
}

JobSlot::Clock::time_point fake_now{};
JobSlot::Clock::time_point FakeNow() { return fake_now; }

TEST(JobSlot, EarlyCancelsExpire) {
  JobSlot slot;
  slot.set_clock_for_testing(&FakeNow);
  fake_now = JobSlot::Clock::time_point{} + std::chrono::hours(1);
  EXPECT_EQ(slot.Cancel("racing"), JobSlot::CancelOutcome::kRemembered);
  fake_now += JobSlot::kEarlyCancelTtl + std::chrono::seconds(1);
  ASSERT_TRUE(slot.TryAcquire("racing"));
  EXPECT_FALSE(slot.cancel_requested()) << "a cancel long before the job is stale";
}

}  // namespace
}  // namespace orcd
