// The small endpoints, answered on the HTTP I/O thread: /cancel, /shutdown,
// and /health*, /metrics from cached state.
#ifndef ORCD_HOST_SERVER_CONTROL_HANDLERS_H_
#define ORCD_HOST_SERVER_CONTROL_HANDLERS_H_

#include <string>

#include "host/server/http_response.h"
#include "host/server/worker_state.h"

namespace orcd {

// POST /cancel {job_id} and POST /shutdown: cheap (a flag set), so answered
// on the I/O thread like the health probes: never refused as overloaded
// however many jobs hold the handler threads.
InlineResponse CancelResponse(WorkerState& state, const std::string& body);
InlineResponse ShutdownResponse(WorkerState& state);

// The /health body, from cached state only (no device call on this path).
std::string HealthJson(const WorkerState& state);
// GET /health, /health/live, /health/ready, /metrics: never block.
InlineResponse HealthResponse(const WorkerState& state);
InlineResponse LiveResponse();
InlineResponse ReadyResponse(const WorkerState& state);
InlineResponse MetricsResponse(WorkerState& state);

// Longest job id /cancel accepts (the /execute limit), so that remembered
// cancels and log lines stay bounded.
constexpr size_t kMaxJobIdBytes = 256;

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_CONTROL_HANDLERS_H_
