// The small endpoints: /cancel and /shutdown (handler threads), and /health*,
// /metrics answered on the HTTP I/O thread from cached state.
#ifndef ORCD_HOST_SERVER_CONTROL_HANDLERS_H_
#define ORCD_HOST_SERVER_CONTROL_HANDLERS_H_

#include <Poco/Net/HTTPRequestHandler.h>

#include <string>

#include "host/server/http_response.h"
#include "host/server/worker_state.h"

namespace orcd {

// One handler class for all of them, dispatching on the route it was made for.
class ControlHandler : public Poco::Net::HTTPRequestHandler {
 public:
  enum class Route { kCancel, kShutdown };
  ControlHandler(WorkerState& state, Route route) : state_(state), route_(route) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override;

 private:
  WorkerState& state_;
  Route route_;
};

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
