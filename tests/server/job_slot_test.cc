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

}  // namespace
}  // namespace orcd
