// POST /execute: validate, take the slot, stream started/token*/end|error.
#ifndef ORCD_HOST_SERVER_EXECUTE_HANDLER_H_
#define ORCD_HOST_SERVER_EXECUTE_HANDLER_H_

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerResponse.h>

#include "host/server/execute_request.h"
#include "host/server/worker_state.h"

namespace orcd {

class ExecuteHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit ExecuteHandler(WorkerState& state) : state_(state) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override;

 private:
  WorkerState& state_;
};

// Request limits derived from the config and the model.
RequestLimits MakeRequestLimits(WorkerState& state);

// /execute and /v1/* while the worker is starting, failed or draining: 503
// (NOT_READY or SHUTTING_DOWN) with Retry-After. True when it answered.
bool RefuseUnlessAccepting(WorkerState& state, Poco::Net::HTTPServerResponse& response);

// Maps a finished job to its terminal SSE event: ("end"|"error", json).
std::pair<std::string, std::string> TerminalEvent(const GenerationResult& result);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_EXECUTE_HANDLER_H_
