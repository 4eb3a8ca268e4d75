// One assistant message of /v1/messages in Anthropic's shapes, fed by a chat
// output parser: content blocks (text, thinking for a reasoning channel,
// tool_use) collected for a non-streamed response, or streamed as the API's
// events as they form: content_block_start, content_block_delta (text_delta,
// thinking_delta, input_json_delta), content_block_stop.
#ifndef ORCD_HOST_SERVER_ANTHROPIC_OUTPUT_H_
#define ORCD_HOST_SERVER_ANTHROPIC_OUTPUT_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "host/chat/output/chat_output_sink.h"

namespace orcd {

class AnthropicOutput : public ChatOutputSink {
 public:
  // `send_event(name, data)` receives each event (streaming); empty: collect only.
  using SendEvent = std::function<void(const std::string& name, const std::string& data)>;
  explicit AnthropicOutput(SendEvent send_event = {}) : send_(std::move(send_event)) {}

  void Content(std::string_view text) override;
  void Reasoning(std::string_view text) override;
  void ToolCallStart(std::string_view name) override;
  void ToolCallArguments(std::string_view fragment) override;
  // Ends the open block (after the parser's Finish).
  void Finish();

  bool has_tool_use() const;
  // The message's "content" array.
  std::string ContentJson() const;

 private:
  enum class Kind { kText, kThinking, kToolUse };
  struct Block {
    Kind kind;
    std::string text;  // text, thinking, or the tool input's JSON text
    std::string id, name;
  };
  // The block to append to: the open one when it is of `kind`, else a new one.
  Block& Open(Kind kind);
  void Close();
  void Delta(const std::string& delta);

  SendEvent send_;
  std::vector<Block> blocks_;
  bool open_ = false;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_ANTHROPIC_OUTPUT_H_
