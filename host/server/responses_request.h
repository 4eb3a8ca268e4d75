// OpenAI's Responses API request (POST /v1/responses), stateless, as a chat
// job: `instructions` and the `input` items (messages, function calls and
// their outputs, reasoning) become the chat template's messages in OpenAI
// chat form, so every model's template reads them as it reads
// /v1/chat/completions; tools are the flat {type: "function", name,
// parameters} form. What would need state (store: true, previous_response_id,
// background) or content this worker cannot read (images, files, hosted
// tools) is refused naming the field, never dropped silently.
#ifndef ORCD_HOST_SERVER_RESPONSES_REQUEST_H_
#define ORCD_HOST_SERVER_RESPONSES_REQUEST_H_

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "host/generation/inference_service.h"
#include "host/server/execute_request.h"
#include "host/structured/tool_call_grammar.h"

namespace orcd {

struct ResponsesRequest {
  std::string model;
  ChatRequest chat;
  bool tools_enabled = false;  // tools offered and tool_choice not "none"
  int64_t max_output_tokens = 0;
  SamplingParams sampling;
  bool stream = false;
  // text.format json_object / json_schema: the output's grammar, and the
  // schema it was compiled from (empty for json_object).
  std::shared_ptr<const structured::Grammar> grammar;
  Poco::Dynamic::Var json_schema;
  // tool_choice "required" or a named function: one of these is called.
  std::vector<structured::ToolSchema> forced_tools;
  // text.format json with tool_choice "auto": every offered function (the
  // reply is the JSON answer or a call of one of them).
  std::vector<structured::ToolSchema> callable_tools;
  // Echoed in the response object as the request set them (JSON text).
  std::string instructions_json = "null";
  std::string tools_json = "[]";
  std::string tool_choice_json = "\"auto\"";
  std::string text_format_json = "{\"type\":\"text\"}";
  std::string reasoning_effort_json = "null";
  std::string metadata_json = "{}";
  bool parallel_tool_calls = true;
};

std::variant<ResponsesRequest, ValidationError> ParseResponsesRequest(const std::string& body,
                                                                      const RequestLimits& limits);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_RESPONSES_REQUEST_H_
