// X-Deadline: RFC 3339 timestamps and epoch milliseconds, nothing else.
#include "host/server/deadline_header.h"

#include <gtest/gtest.h>

namespace orcd {
namespace {

using std::chrono::milliseconds;
using std::chrono::system_clock;

int64_t EpochMs(system_clock::time_point t) {
  return std::chrono::duration_cast<milliseconds>(t.time_since_epoch()).count();
}

TEST(DeadlineHeader, Rfc3339AndEpochMillisecondsNameTheSameInstant) {
  // 2025-10-03T20:00:00Z = 1759521600 s.
  const int64_t expected = 1759521600000;
  for (const char* v :
       {"2025-10-03T20:00:00Z", "2025-10-03T20:00:00.000Z", "2025-10-03T22:00:00+02:00",
        "2025-10-03T15:30:00-04:30", "1759521600000"}) {
    const auto t = ParseDeadlineHeader(v);
    ASSERT_TRUE(t.has_value()) << v;
    EXPECT_EQ(EpochMs(*t), expected) << v;
  }
  EXPECT_EQ(EpochMs(*ParseDeadlineHeader("2025-10-03T20:00:00.250Z")), expected + 250);
}

TEST(DeadlineHeader, AnythingElseIsRefused) {
  for (const char* v : {"", "soon", "2025-10-03", "2025-10-03T20:00:00", "20:00:00Z", "-5", "1e12",
                        "2025-10-03T20:00:00Zjunk", "99999999999999999999999"}) {
    EXPECT_FALSE(ParseDeadlineHeader(v).has_value()) << v;
  }
}

}  // namespace
}  // namespace orcd
