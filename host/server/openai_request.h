// Parsing of OpenAI completion / chat completion requests into a job.
// Unknown fields are ignored (clients send many); known ones are validated.
#ifndef ORCD_HOST_SERVER_OPENAI_REQUEST_H_
#define ORCD_HOST_SERVER_OPENAI_REQUEST_H_

#include <string>
#include <variant>
#include <vector>

#include "host/generation/inference_service.h"
#include "host/server/execute_request.h"

namespace orcd {

struct OpenAiRequest {
  bool chat = false;
  bool stream = false;
  std::string model;
  std::string prompt;          // completions
  ChatRequest chat_request;    // chat
  bool tools_enabled = false;  // chat: parse tool calls in the output
  int64_t max_tokens = 0;
  SamplingParams sampling;
  std::vector<std::string> stop;
  std::string cache_salt;  // vLLM's field: prefix caching shared only under the same salt
};

std::variant<OpenAiRequest, ValidationError> ParseOpenAiRequest(const std::string& body, bool chat,
                                                                const RequestLimits& limits);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_OPENAI_REQUEST_H_
