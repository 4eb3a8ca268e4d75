// The small endpoints: /cancel, /shutdown, /health*, /metrics, and 404s.
#ifndef ORCD_HOST_SERVER_CONTROL_HANDLERS_H_
#define ORCD_HOST_SERVER_CONTROL_HANDLERS_H_

#include <Poco/Net/HTTPRequestHandler.h>

#include <string>

#include "host/server/worker_state.h"

namespace orcd {

// One handler class for all of them, dispatching on the route it was made for.
class ControlHandler : public Poco::Net::HTTPRequestHandler {
 public:
  enum class Route { kCancel, kShutdown, kHealth, kLive, kReady, kMetrics, kNotFound, kBadMethod };
  ControlHandler(WorkerState& state, Route route) : state_(state), route_(route) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override;

 private:
  WorkerState& state_;
  Route route_;
};

// The /health body, from cached state only (no device call on this path).
std::string HealthJson(const WorkerState& state);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_CONTROL_HANDLERS_H_
