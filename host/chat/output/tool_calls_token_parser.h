// Mistral tool calls after the [TOOL_CALLS] token, in either of the two
// shapes Mistral's templates use: a JSON array of call objects (v0.3, Nemo)
//   [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1b2c3d4e"}]
// or name and arguments apart (Mistral Small 3.2 and later), repeated per call
//   [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}
//   [TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}
// Text before [TOOL_CALLS] is content.
#ifndef ORCD_HOST_CHAT_OUTPUT_TOOL_CALLS_TOKEN_PARSER_H_
#define ORCD_HOST_CHAT_OUTPUT_TOOL_CALLS_TOKEN_PARSER_H_

#include <optional>
#include <string>

#include "host/chat/output/chat_output_parser.h"
#include "host/chat/output/json_scan.h"
#include "host/chat/output/tool_call_json.h"

namespace orcd {

class ToolCallsTokenParser : public ChatOutputParser {
 public:
  void Push(std::string_view text, ChatOutputSink& sink) override;
  void Finish(ChatOutputSink& sink) override;

 private:
  enum class Mode {
    kContent,      // before [TOOL_CALLS]
    kAfterMarker,  // deciding between the two shapes
    kArray,        // between array elements
    kElement,      // inside one call object
    kName,         // the function name, up to [CALL_ID] or [ARGS]
    kCallId,       // the model's call id, up to [ARGS]
    kArguments,    // the arguments JSON
    kAfterCall,    // another [TOOL_CALLS], or trailing content
    kRest,         // after the calls: content
  };
  // Gives up on markup: what it consumed so far goes out as content.
  void Fail(ChatOutputSink& sink);

  Mode mode_ = Mode::kContent;
  std::string held_;      // text that may still be markup
  std::string consumed_;  // markup of the call being read (for Fail)
  std::optional<ToolCallJsonStream> call_;
  JsonValueScanner arguments_;
  std::string name_;
};

}  // namespace orcd

#endif  // ORCD_HOST_CHAT_OUTPUT_TOOL_CALLS_TOKEN_PARSER_H_
