// Parsing of OpenAI completion / chat completion requests into a job.
// Unknown fields are ignored (clients send many: user, metadata, ...); known
// ones are validated, and those that would change the result in a way this
// worker does not implement (echo, best_of, suffix)
// are refused naming the field, rather than silently not honoured.
#ifndef ORCD_HOST_SERVER_OPENAI_REQUEST_H_
#define ORCD_HOST_SERVER_OPENAI_REQUEST_H_

#include <string>
#include <variant>
#include <vector>

#include "host/generation/inference_service.h"
#include "host/server/execute_request.h"
#include "host/structured/tool_call_grammar.h"

namespace orcd {

struct OpenAiRequest {
  bool chat = false;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage: a last chunk with usage
  std::string model;
  std::string prompt;          // completions
  ChatRequest chat_request;    // chat
  bool tools_enabled = false;  // chat: parse tool calls in the output
  int64_t max_tokens = 0;
  SamplingParams sampling;
  std::vector<std::string> stop;
  std::string cache_salt;  // vLLM's field: prefix caching shared only under the same salt
  // Chat top_logprobs (0 with logprobs: true alone) or completions logprobs;
  // -1: no logprobs.
  int top_logprobs = -1;
  int n = 1;  // choices, each its own sequence (1 .. kMaxChoices)
  // response_format json_object / json_schema: the output's grammar, and
  // the schema it was compiled from (empty for json_object).
  std::shared_ptr<const structured::Grammar> grammar;
  Poco::Dynamic::Var json_schema;
  // tool_choice "required" or a named function: the functions one of which
  // the reply calls (their parameters schemas already checked to compile).
  std::vector<structured::ToolSchema> forced_tools;
  // response_format json with tool_choice "auto": every offered function (the
  // reply is the JSON answer or a call of one of them).
  std::vector<structured::ToolSchema> callable_tools;
};

// The most choices one request may ask for (n): each is a sequence of its own.
inline constexpr int kMaxChoices = 16;

std::variant<OpenAiRequest, ValidationError> ParseOpenAiRequest(const std::string& body, bool chat,
                                                                const RequestLimits& limits);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_OPENAI_REQUEST_H_
