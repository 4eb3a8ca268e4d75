// Splits a chat model's generated text into answer, reasoning and tool calls
// as it streams. One implementation per output format (chat_output_format.h
// picks it from the chat template). Text arrives in arbitrary pieces (a
// marker such as "<tool_call>" may be split across them); a parser holds back
// only what may still turn out to be markup and releases it as soon as it
// cannot. Output a parser cannot make sense of (malformed JSON, a marker
// without its closing part) goes out as plain content: never an error.
#ifndef ORCD_HOST_CHAT_OUTPUT_CHAT_OUTPUT_PARSER_H_
#define ORCD_HOST_CHAT_OUTPUT_CHAT_OUTPUT_PARSER_H_

#include <string_view>

#include "host/chat/output/chat_output_sink.h"

namespace orcd {

class ChatOutputParser {
 public:
  virtual ~ChatOutputParser() = default;
  // More generated text.
  virtual void Push(std::string_view text, ChatOutputSink& sink) = 0;
  // The end of the turn: whatever is still held back goes out.
  virtual void Finish(ChatOutputSink& sink) = 0;
};

// Everything is content (formats without tool calls, or tools not offered).
class PlainContentParser : public ChatOutputParser {
 public:
  void Push(std::string_view text, ChatOutputSink& sink) override {
    if (!text.empty()) sink.Content(text);
  }
  void Finish(ChatOutputSink&) override {}
};

}  // namespace orcd

#endif  // ORCD_HOST_CHAT_OUTPUT_CHAT_OUTPUT_PARSER_H_
