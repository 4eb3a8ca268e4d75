// The output items of one /v1/responses answer, fed by a chat output parser:
// a reasoning item (gpt-oss's analysis channel, as reasoning_text content),
// a message item (output_text) and function_call items, collected for the
// response object, and when streaming sent as the API's events as they form:
//   response.output_item.added, response.content_part.added,
//   response.output_text.delta / response.reasoning_text.delta, ...done,
//   response.function_call_arguments.delta / .done,
//   response.content_part.done, response.output_item.done
// each {"type": <event>, "sequence_number": n, ...}, numbered from the
// response's first event (Event() sends the handler's own: created,
// in_progress, completed).
#ifndef ORCD_HOST_SERVER_RESPONSES_OUTPUT_H_
#define ORCD_HOST_SERVER_RESPONSES_OUTPUT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "host/chat/output/chat_output_sink.h"

namespace orcd {

class ResponsesOutput : public ChatOutputSink {
 public:
  // `send_event(type, data)` receives each event (streaming); empty: collect only.
  using SendEvent = std::function<void(const std::string& type, const std::string& data)>;
  explicit ResponsesOutput(SendEvent send_event = {}) : send_(std::move(send_event)) {}

  void Content(std::string_view text) override;
  void Reasoning(std::string_view text) override;
  void ToolCallStart(std::string_view name) override;
  void ToolCallArguments(std::string_view fragment) override;
  // Ends the open item (after the parser's Finish): "completed", or
  // "incomplete" when the output was cut short.
  void Finish(bool complete);

  // Sends event `type` with `fields` (JSON members, without braces) after
  // its type and sequence number.
  void Event(std::string_view type, const std::string& fields);

  bool has_function_call() const;
  // Bytes of reasoning so far (a token that adds some is a reasoning token).
  size_t reasoning_bytes() const { return reasoning_bytes_; }
  // The response's "output" array.
  std::string OutputJson() const;

 private:
  enum class Kind { kReasoning, kMessage, kFunctionCall };
  struct Item {
    Kind kind;
    std::string id;
    std::string text;  // reasoning, message text, or the call's arguments
    std::string call_id, name;
    std::string status = "in_progress";
  };
  // The item to append to: the open one when it is of `kind`, else a new one.
  Item& Open(Kind kind);
  // Appends to the open message or reasoning item of `kind`, first opening
  // one (its output_item.added and content_part.added events) if needed.
  void AppendText(Kind kind, std::string_view text);
  void Close(const std::string& status);
  // The item's JSON as output_item.added (`done` false) or as it ends.
  std::string ItemJson(const Item& item, bool done) const;
  std::string Where() const;  // "item_id":..,"output_index":n of the open item

  SendEvent send_;
  std::vector<Item> items_;
  bool open_ = false;
  int64_t sequence_ = 0;
  size_t reasoning_bytes_ = 0;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_RESPONSES_OUTPUT_H_
