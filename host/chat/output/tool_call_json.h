// One tool call written as a JSON object, {"name": "f", "arguments": {...}}
// ("parameters" in Llama 3.1's format), streamed as it arrives: once the name
// and the start of the arguments have been seen, the call starts and the
// arguments go out fragment by fragment, exactly as the model writes them.
// Objects in another key order, or with arguments given as a JSON string,
// are parsed whole when complete. Used by the Hermes, Llama and Mistral
// parsers.
#ifndef ORCD_HOST_CHAT_OUTPUT_TOOL_CALL_JSON_H_
#define ORCD_HOST_CHAT_OUTPUT_TOOL_CALL_JSON_H_

#include <string>
#include <string_view>

#include "host/chat/output/chat_output_sink.h"
#include "host/chat/output/json_scan.h"

namespace orcd {

class ToolCallJsonStream {
 public:
  enum class State {
    kHead,       // before the arguments: nothing emitted yet
    kArguments,  // the call has started; arguments are streaming
    kWhole,      // another shape: waiting for the whole object
    kDone,       // the object is complete and emitted
    kFailed,     // not a tool call: nothing was emitted, raw() is the text
  };

  // Consumes text up to the end of the object; returns how many characters
  // of `text` it took (all of them while the object is open).
  size_t Push(std::string_view text, ChatOutputSink& sink);
  // The end of the stream: a call that never started fails (its text is
  // content); a started one stays as far as it got (finish_reason "length"
  // tells the client it was cut).
  void Finish();

  State state() const { return state_; }
  bool started() const { return started_; }
  // Everything consumed so far.
  const std::string& raw() const { return raw_; }

 private:
  void TryHead(ChatOutputSink& sink);
  void StreamArguments(std::string_view text, ChatOutputSink& sink);
  void EmitWhole(ChatOutputSink& sink);

  State state_ = State::kHead;
  bool started_ = false;
  std::string raw_;
  JsonValueScanner object_;     // the whole call object
  JsonValueScanner arguments_;  // its arguments value (kArguments)
};

}  // namespace orcd

#endif  // ORCD_HOST_CHAT_OUTPUT_TOOL_CALL_JSON_H_
