// Hermes-style tool calls (Qwen2.5, Qwen3, Hermes): each call is a JSON
// object between <tool_call> and </tool_call>; text outside them is content.
//   <tool_call>
//   {"name": "get_weather", "arguments": {"city": "Paris"}}
//   </tool_call>
#ifndef ORCD_HOST_CHAT_OUTPUT_HERMES_TOOL_PARSER_H_
#define ORCD_HOST_CHAT_OUTPUT_HERMES_TOOL_PARSER_H_

#include <optional>
#include <string>

#include "host/chat/output/chat_output_parser.h"
#include "host/chat/output/tool_call_json.h"

namespace orcd {

class HermesToolParser : public ChatOutputParser {
 public:
  void Push(std::string_view text, ChatOutputSink& sink) override;
  void Finish(ChatOutputSink& sink) override;

 private:
  enum class Mode { kContent, kCall, kAfterCall, kSkipSpace };
  Mode mode_ = Mode::kContent;
  std::string held_;  // content or closing tag that may still be markup
  std::optional<ToolCallJsonStream> call_;
};

}  // namespace orcd

#endif  // ORCD_HOST_CHAT_OUTPUT_HERMES_TOOL_PARSER_H_
