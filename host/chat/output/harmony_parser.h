// gpt-oss's harmony format. The prompt ends with "<|start|>assistant"; the
// model then writes one or more messages, each a header up to <|message|>
// and a body up to <|end|> (or the end of the turn: <|return|>, <|call|>,
// which stop generation and are never seen here):
//   <|channel|>analysis<|message|>Need the weather.<|end|>
//   <|start|>assistant<|channel|>final<|message|>It is sunny.
//   <|start|>assistant to=functions.get_weather<|channel|>commentary
//   json<|message|>{"city":"Paris"}
//   <|start|>assistant<|channel|>commentary to=functions.get_weather
//   <|constrain|>json<|message|>{...}
// The analysis channel is reasoning, final (and commentary without a
// recipient, a preamble) is content, and a message to functions.NAME is a
// tool call whose body is the arguments. Text that is not harmony markup is
// content.
#ifndef ORCD_HOST_CHAT_OUTPUT_HARMONY_PARSER_H_
#define ORCD_HOST_CHAT_OUTPUT_HARMONY_PARSER_H_

#include <string>

#include "host/chat/output/chat_output_parser.h"

namespace orcd {

class HarmonyParser : public ChatOutputParser {
 public:
  // tools_enabled: false sends messages to functions as content (no tools
  // were offered, so the client expects none).
  explicit HarmonyParser(bool tools_enabled) : tools_enabled_(tools_enabled) {}
  void Push(std::string_view text, ChatOutputSink& sink) override;
  void Finish(ChatOutputSink& sink) override;

 private:
  enum class Mode { kHeader, kBody, kBetween, kRaw };
  enum class Route { kContent, kReasoning, kToolCall };
  void StartBody(ChatOutputSink& sink);
  void Emit(std::string_view text, ChatOutputSink& sink);

  bool tools_enabled_;
  Mode mode_ = Mode::kHeader;
  Route route_ = Route::kContent;
  bool after_start_ = false;  // the header follows <|start|>: it begins with the role
  std::string held_;          // header text, or the end of a body that may be <|end|>
};

}  // namespace orcd

#endif  // ORCD_HOST_CHAT_OUTPUT_HARMONY_PARSER_H_
