// The chat-only fields of /v1/chat/completions: messages (with tool calls
// and tool replies), tools, tool_choice, reasoning_effort and
// chat_template_kwargs, validated and turned into what the chat template
// receives. Object key order is kept: templates print tools with tojson.
#ifndef ORCD_HOST_SERVER_OPENAI_CHAT_REQUEST_H_
#define ORCD_HOST_SERVER_OPENAI_CHAT_REQUEST_H_

#include <string>

#include "host/generation/inference_service.h"

namespace orcd {

struct ParsedChatFields {
  ChatRequest request;
  // Tools were offered and tool_choice is not "none": tool calls in the
  // output are parsed into tool_calls.
  bool tools_enabled = false;
};

// `body` is the request body, already known to be a JSON object. Throws
// InvalidRequest (request_validation.h) naming the field.
ParsedChatFields ParseChatFields(const std::string& body);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_OPENAI_CHAT_REQUEST_H_
