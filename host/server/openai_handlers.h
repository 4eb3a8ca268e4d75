// OpenAI-compatible endpoints so existing clients work unchanged:
// GET /v1/models, POST /v1/completions, POST /v1/chat/completions
// (streaming as "data: {chunk}" lines ending with "data: [DONE]", and not).
#ifndef ORCD_HOST_SERVER_OPENAI_HANDLERS_H_
#define ORCD_HOST_SERVER_OPENAI_HANDLERS_H_

#include <Poco/Net/HTTPRequestHandler.h>

#include <string>

#include "host/server/worker_state.h"

namespace orcd {

// A handler for an OpenAI route, or nullptr when `path` is not one.
Poco::Net::HTTPRequestHandler* CreateOpenAiHandler(WorkerState& state, const std::string& method,
                                                   const std::string& path);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_OPENAI_HANDLERS_H_
