// Where a parsed assistant turn goes, piece by piece: the answer text, the
// reasoning (gpt-oss's analysis channel) and tool calls (a start with the
// function's name, then fragments of its JSON arguments). The OpenAI layer
// turns these into response fields or streamed deltas; ChatOutputCollector
// gathers them into one message (non-streamed responses, tests).
#ifndef ORCD_HOST_CHAT_OUTPUT_CHAT_OUTPUT_SINK_H_
#define ORCD_HOST_CHAT_OUTPUT_CHAT_OUTPUT_SINK_H_

#include <string>
#include <string_view>
#include <vector>

namespace orcd {

class ChatOutputSink {
 public:
  virtual ~ChatOutputSink() = default;
  virtual void Content(std::string_view text) = 0;
  virtual void Reasoning(std::string_view text) = 0;
  // A new tool call; the arguments that follow belong to it.
  virtual void ToolCallStart(std::string_view name) = 0;
  virtual void ToolCallArguments(std::string_view fragment) = 0;
};

struct ParsedToolCall {
  std::string name;
  std::string arguments;  // JSON text as the model wrote it
};

// Accumulates everything it is given; adjacent pieces of one kind are joined.
class ChatOutputCollector : public ChatOutputSink {
 public:
  void Content(std::string_view text) override { content.append(text); }
  void Reasoning(std::string_view text) override { reasoning.append(text); }
  void ToolCallStart(std::string_view name) override {
    tool_calls.push_back({std::string(name), ""});
  }
  void ToolCallArguments(std::string_view fragment) override {
    if (!tool_calls.empty()) tool_calls.back().arguments.append(fragment);
  }

  std::string content;
  std::string reasoning;
  std::vector<ParsedToolCall> tool_calls;
};

}  // namespace orcd

#endif  // ORCD_HOST_CHAT_OUTPUT_CHAT_OUTPUT_SINK_H_
