#include "host/chat/output/hermes_tool_parser.h"

#include "host/chat/output/json_scan.h"

namespace orcd {
namespace {

constexpr std::string_view kOpen = "<tool_call>";
constexpr std::string_view kClose = "</tool_call>";

}  // namespace

void HermesToolParser::Push(std::string_view input, ChatOutputSink& sink) {
  std::string text(input);
  while (!text.empty()) {
    switch (mode_) {
      case Mode::kSkipSpace: {
        const std::string_view rest = TrimLeft(text);
        if (rest.empty()) return;
        text = std::string(rest);
        mode_ = Mode::kContent;
        break;
      }
      case Mode::kContent: {
        const std::string buffer = held_ + text;
        held_.clear();
        const size_t open = buffer.find(kOpen);
        if (open == std::string::npos) {
          const size_t hold = PartialMarkerLength(buffer, {kOpen});
          if (buffer.size() > hold)
            sink.Content(std::string_view(buffer).substr(0, buffer.size() - hold));
          held_ = buffer.substr(buffer.size() - hold);
          return;
        }
        if (open > 0) sink.Content(std::string_view(buffer).substr(0, open));
        call_.emplace();
        mode_ = Mode::kCall;
        text = buffer.substr(open + kOpen.size());
        break;
      }
      case Mode::kCall: {
        const size_t taken = call_->Push(text, sink);
        text.erase(0, taken);
        if (call_->state() == ToolCallJsonStream::State::kFailed) {
          sink.Content(std::string(kOpen) + call_->raw());
          mode_ = Mode::kContent;
        } else if (call_->state() == ToolCallJsonStream::State::kDone) {
          mode_ = Mode::kAfterCall;
        }
        break;
      }
      case Mode::kAfterCall: {
        const std::string buffer = held_ + text;
        held_.clear();
        const std::string_view rest = TrimLeft(buffer);
        if (rest.starts_with(kClose)) {
          text = std::string(rest.substr(kClose.size()));
          mode_ = Mode::kSkipSpace;
        } else if (kClose.starts_with(rest)) {
          held_ = buffer;  // the closing tag may still come
          return;
        } else {
          text = buffer;  // no closing tag: the rest is content
          mode_ = Mode::kContent;
        }
        break;
      }
    }
  }
}

void HermesToolParser::Finish(ChatOutputSink& sink) {
  if (mode_ == Mode::kCall) {
    call_->Finish();
    if (!call_->started()) sink.Content(std::string(kOpen) + call_->raw());
  } else if (mode_ == Mode::kContent && !held_.empty()) {
    sink.Content(held_);
  }
  held_.clear();
  mode_ = Mode::kContent;
}

}  // namespace orcd
