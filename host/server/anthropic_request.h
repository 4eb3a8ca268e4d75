// Anthropic's Messages API request (POST /v1/messages) as a chat job: the
// system prompt, user and assistant turns with text, tool_use and
// tool_result blocks, and tools become the chat template's messages and
// tools in OpenAI's form (so every model's template reads them as it reads
// /v1/chat/completions). Blocks orcd cannot use (images, documents) and
// extended thinking are refused naming the field, never dropped silently.
#ifndef ORCD_HOST_SERVER_ANTHROPIC_REQUEST_H_
#define ORCD_HOST_SERVER_ANTHROPIC_REQUEST_H_

#include <string>
#include <variant>
#include <vector>

#include "host/generation/inference_service.h"
#include "host/server/execute_request.h"
#include "host/structured/tool_call_grammar.h"

namespace orcd {

struct AnthropicRequest {
  std::string model;
  ChatRequest chat;
  bool tools_enabled = false;  // tools offered and tool_choice not "none"
  int64_t max_tokens = 0;      // required by the API
  SamplingParams sampling;
  std::vector<std::string> stop;  // stop_sequences
  bool stream = false;
  // tool_choice "any" or "tool": the tools one of which the reply calls
  // (their input schemas checked to compile).
  std::vector<structured::ToolSchema> forced_tools;
};

// `count_only`: /v1/messages/count_tokens (max_tokens not required).
std::variant<AnthropicRequest, ValidationError> ParseAnthropicRequest(const std::string& body,
                                                                      const RequestLimits& limits,
                                                                      bool count_only = false);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_ANTHROPIC_REQUEST_H_
