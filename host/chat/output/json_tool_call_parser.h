// Llama 3.1 / 3.2 tool calls: the whole reply is one JSON object naming the
// function and its "parameters", optionally after <|python_tag|>; several
// calls may follow each other separated by ";". A reply that does not start
// that way is content.
//   {"name": "get_weather", "parameters": {"city": "Paris"}}
//   <|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}
#ifndef ORCD_HOST_CHAT_OUTPUT_JSON_TOOL_CALL_PARSER_H_
#define ORCD_HOST_CHAT_OUTPUT_JSON_TOOL_CALL_PARSER_H_

#include <optional>
#include <string>

#include "host/chat/output/chat_output_parser.h"
#include "host/chat/output/tool_call_json.h"

namespace orcd {

class JsonToolCallParser : public ChatOutputParser {
 public:
  void Push(std::string_view text, ChatOutputSink& sink) override;
  void Finish(ChatOutputSink& sink) override;

 private:
  enum class Mode { kStart, kContent, kCall, kBetweenCalls };
  Mode mode_ = Mode::kStart;
  std::string held_;    // the reply's start, until it is known to be a call or not
  std::string prefix_;  // "<|python_tag|>" when the call came after it
  std::optional<ToolCallJsonStream> call_;
};

}  // namespace orcd

#endif  // ORCD_HOST_CHAT_OUTPUT_JSON_TOOL_CALL_PARSER_H_
