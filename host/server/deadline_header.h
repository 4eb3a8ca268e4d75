// The spec's X-Deadline request header: when the caller stops caring about
// the answer. orcd accepts an RFC 3339 timestamp ("2025-10-03T20:00:00Z",
// fractional seconds and UTC offsets allowed) or integer milliseconds since
// the Unix epoch, and ends the job with INFERENCE_TIMEOUT when it passes
// (the spec only asks that it be logged; ending the job is the useful step
// beyond).
#ifndef ORCD_HOST_SERVER_DEADLINE_HEADER_H_
#define ORCD_HOST_SERVER_DEADLINE_HEADER_H_

#include <chrono>
#include <optional>
#include <string>

namespace orcd {

// The wall-clock deadline, or nullopt when `value` is neither form.
std::optional<std::chrono::system_clock::time_point> ParseDeadlineHeader(const std::string& value);

// The same instant on the steady clock (what the job loop measures against),
// given the remaining time.
std::chrono::steady_clock::time_point SteadyDeadline(std::chrono::milliseconds remaining);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_DEADLINE_HEADER_H_
