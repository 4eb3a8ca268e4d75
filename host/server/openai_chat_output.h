// One assistant message of /v1/chat/completions in OpenAI's shapes, fed by a
// chat output parser: either streamed as choice deltas, e.g.
//   {"delta":{"reasoning_content":"..."},"index":0,"finish_reason":null}
//   {"delta":{"tool_calls":[{"index":0,"id":"call_..","type":"function",
//             "function":{"name":"f","arguments":""}}]},...}
//   {"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]},...}
// or collected into the message of a non-streamed response.
#ifndef ORCD_HOST_SERVER_OPENAI_CHAT_OUTPUT_H_
#define ORCD_HOST_SERVER_OPENAI_CHAT_OUTPUT_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "host/chat/output/chat_output_sink.h"

namespace orcd {

class OpenAiChatOutput : public ChatOutputSink {
 public:
  // `send_delta` receives each choice delta (streaming); empty: collect only.
  // `choice`: the choice's index in its chunks (n > 1).
  explicit OpenAiChatOutput(std::function<void(const std::string& choice)> send_delta = {},
                            int choice = 0)
      : send_delta_(std::move(send_delta)), choice_(choice) {}

  void Content(std::string_view text) override;
  void Reasoning(std::string_view text) override;
  void ToolCallStart(std::string_view name) override;
  void ToolCallArguments(std::string_view fragment) override;

  bool has_tool_calls() const { return !message_.tool_calls.empty(); }
  // {"role":"assistant","content":...} with reasoning_content and tool_calls
  // when there are any (content null when there are only tool calls).
  std::string MessageJson() const;

 private:
  void Send(const std::string& delta);

  std::function<void(const std::string&)> send_delta_;
  int choice_ = 0;
  ChatOutputCollector message_;
  std::vector<std::string> ids_;
};

// `prefix` and 24 random letters and digits, as OpenAI's tool call ids
// ("call_") and Anthropic's tool_use ids ("toolu_") look.
std::string NewCallId(std::string_view prefix);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_OPENAI_CHAT_OUTPUT_H_
