#include "host/chat/output/json_tool_call_parser.h"

#include "host/chat/output/json_scan.h"

namespace orcd {
namespace {

constexpr std::string_view kPythonTag = "<|python_tag|>";

}  // namespace

void JsonToolCallParser::Push(std::string_view input, ChatOutputSink& sink) {
  std::string text(input);
  while (!text.empty()) {
    switch (mode_) {
      case Mode::kContent:
        sink.Content(text);
        return;
      case Mode::kStart: {
        held_ += text;
        text.clear();
        const std::string_view rest = TrimLeft(held_);
        if (rest.empty() || (kPythonTag.starts_with(rest) && rest != kPythonTag)) return;
        if (rest.starts_with(kPythonTag)) {
          prefix_ = kPythonTag;
          text = std::string(rest.substr(kPythonTag.size()));
        } else if (rest.front() == '{') {
          text = std::string(rest);
        } else {
          text = held_;
          held_.clear();
          mode_ = Mode::kContent;
          break;
        }
        held_.clear();
        call_.emplace();
        mode_ = Mode::kCall;
        break;
      }
      case Mode::kCall: {
        const size_t taken = call_->Push(text, sink);
        text.erase(0, taken);
        if (call_->state() == ToolCallJsonStream::State::kFailed) {
          sink.Content(prefix_ + call_->raw());
          mode_ = Mode::kContent;
        } else if (call_->state() == ToolCallJsonStream::State::kDone) {
          mode_ = Mode::kBetweenCalls;
        }
        break;
      }
      case Mode::kBetweenCalls: {
        size_t skip = 0;
        while (skip < text.size() && (text[skip] == ';' || text[skip] == ' ' ||
                                      text[skip] == '\n' || text[skip] == '\t')) {
          ++skip;
        }
        text.erase(0, skip);
        if (text.empty()) return;
        if (text.front() == '{') {
          prefix_.clear();
          call_.emplace();
          mode_ = Mode::kCall;
        } else {
          mode_ = Mode::kContent;
        }
        break;
      }
    }
  }
}

void JsonToolCallParser::Finish(ChatOutputSink& sink) {
  if (mode_ == Mode::kStart && !held_.empty()) {
    sink.Content(held_);
  } else if (mode_ == Mode::kCall) {
    call_->Finish();
    if (!call_->started()) sink.Content(prefix_ + call_->raw());
  }
  held_.clear();
  mode_ = Mode::kStart;
}

}  // namespace orcd
