// Anthropic's Messages API so that clients built for Claude (coding agents,
// @anthropic-ai/sdk) work unchanged: POST /v1/messages (streamed as the
// API's named events message_start ... message_stop, and not) and
// POST /v1/messages/count_tokens. Errors in Anthropic's shape
// {"type":"error","error":{"type","message"}}.
#ifndef ORCD_HOST_SERVER_ANTHROPIC_HANDLERS_H_
#define ORCD_HOST_SERVER_ANTHROPIC_HANDLERS_H_

#include <Poco/Net/HTTPRequestHandler.h>

#include <string>

#include "host/server/worker_state.h"

namespace orcd {

// A handler for an Anthropic route, or nullptr when `path` is not one.
Poco::Net::HTTPRequestHandler* CreateAnthropicHandler(WorkerState& state, const std::string& path);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_ANTHROPIC_HANDLERS_H_
