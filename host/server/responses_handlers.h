// OpenAI's Responses API, stateless: POST /v1/responses, answered as a
// response object or streamed as its events (response.created ...
// response.completed). Errors in OpenAI's shape; a failure after the stream
// began is a response.failed event.
#ifndef ORCD_HOST_SERVER_RESPONSES_HANDLERS_H_
#define ORCD_HOST_SERVER_RESPONSES_HANDLERS_H_

#include <Poco/Net/HTTPRequestHandler.h>

#include <string>

#include "host/server/worker_state.h"

namespace orcd {

// A handler for a Responses route, or nullptr when `path` is not one.
Poco::Net::HTTPRequestHandler* CreateResponsesHandler(WorkerState& state, const std::string& path);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_RESPONSES_HANDLERS_H_
