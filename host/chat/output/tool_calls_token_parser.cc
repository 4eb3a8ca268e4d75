#include "host/chat/output/tool_calls_token_parser.h"

namespace orcd {
namespace {

constexpr std::string_view kToolCalls = "[TOOL_CALLS]";
constexpr std::string_view kArgs = "[ARGS]";
constexpr std::string_view kCallId = "[CALL_ID]";

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

}  // namespace

void ToolCallsTokenParser::Fail(ChatOutputSink& sink) {
  if (!consumed_.empty()) sink.Content(consumed_);
  consumed_.clear();
  mode_ = Mode::kRest;
}

void ToolCallsTokenParser::Push(std::string_view input, ChatOutputSink& sink) {
  std::string text(input);
  while (!text.empty()) {
    switch (mode_) {
      case Mode::kRest:
        sink.Content(text);
        return;
      case Mode::kContent: {
        const std::string buffer = held_ + text;
        held_.clear();
        const size_t at = buffer.find(kToolCalls);
        if (at == std::string::npos) {
          const size_t hold = PartialMarkerLength(buffer, {kToolCalls});
          if (buffer.size() > hold) {
            sink.Content(std::string_view(buffer).substr(0, buffer.size() - hold));
          }
          held_ = buffer.substr(buffer.size() - hold);
          return;
        }
        if (at > 0) sink.Content(std::string_view(buffer).substr(0, at));
        consumed_ = kToolCalls;
        text = buffer.substr(at + kToolCalls.size());
        mode_ = Mode::kAfterMarker;
        break;
      }
      case Mode::kAfterMarker: {
        const std::string_view rest = TrimLeft(text);
        consumed_ += text.substr(0, text.size() - rest.size());
        if (rest.empty()) return;
        if (rest.front() == '[') {
          consumed_ += '[';
          text = std::string(rest.substr(1));
          mode_ = Mode::kArray;
        } else {
          text = std::string(rest);
          held_.clear();
          mode_ = Mode::kName;
        }
        break;
      }
      case Mode::kArray: {
        size_t skip = 0;
        while (skip < text.size() && (text[skip] == ',' || text[skip] == ' ' ||
                                      text[skip] == '\n' || text[skip] == '\t')) {
          ++skip;
        }
        consumed_ += text.substr(0, skip);
        text.erase(0, skip);
        if (text.empty()) return;
        if (text.front() == ']') {
          consumed_.clear();
          text.erase(0, 1);
          mode_ = Mode::kAfterCall;
        } else if (text.front() == '{') {
          call_.emplace();
          mode_ = Mode::kElement;
        } else {
          Fail(sink);
        }
        break;
      }
      case Mode::kElement: {
        const size_t taken = call_->Push(text, sink);
        text.erase(0, taken);
        if (call_->state() == ToolCallJsonStream::State::kFailed) {
          consumed_ += call_->raw();
          Fail(sink);
        } else if (call_->state() == ToolCallJsonStream::State::kDone) {
          consumed_.clear();  // emitted as a call: never content again
          mode_ = Mode::kArray;
        }
        break;
      }
      case Mode::kName:
      case Mode::kCallId: {
        held_ += text;
        text.clear();
        const size_t args = held_.find(kArgs);
        const size_t id = mode_ == Mode::kName ? held_.find(kCallId) : std::string::npos;
        const size_t end = std::min(args, id);
        const std::string_view part = std::string_view(held_).substr(0, end);
        if (mode_ == Mode::kName) {
          for (const char c :
               part.substr(0, part.size() - PartialMarkerLength(part, {kArgs, kCallId}))) {
            if (!IsNameChar(c)) {
              consumed_ += held_;
              held_.clear();
              Fail(sink);
              return;
            }
          }
        }
        if (end == std::string::npos) return;
        if (mode_ == Mode::kName) {
          if (part.empty()) {
            consumed_ += held_;
            held_.clear();
            Fail(sink);
            return;
          }
          name_ = std::string(part);
        }
        if (end == id) {
          consumed_ += held_.substr(0, id + kCallId.size());
          text = held_.substr(id + kCallId.size());
          mode_ = Mode::kCallId;
        } else {
          sink.ToolCallStart(name_);
          consumed_.clear();
          text = held_.substr(args + kArgs.size());
          arguments_ = JsonValueScanner();
          mode_ = Mode::kArguments;
        }
        held_.clear();
        break;
      }
      case Mode::kArguments: {
        const size_t taken = arguments_.Feed(text);
        if (taken > 0) sink.ToolCallArguments(std::string_view(text).substr(0, taken));
        text.erase(0, taken);
        if (arguments_.done() || arguments_.failed()) mode_ = Mode::kAfterCall;
        break;
      }
      case Mode::kAfterCall: {
        const std::string buffer = held_ + text;
        held_.clear();
        const std::string_view rest = TrimLeft(buffer);
        if (rest.empty()) return;
        if (rest.starts_with(kToolCalls)) {
          consumed_ = kToolCalls;
          text = std::string(rest.substr(kToolCalls.size()));
          mode_ = Mode::kAfterMarker;
        } else if (kToolCalls.starts_with(rest)) {
          held_ = buffer;
          return;
        } else {
          text = std::string(rest);
          mode_ = Mode::kRest;
        }
        break;
      }
    }
  }
}

void ToolCallsTokenParser::Finish(ChatOutputSink& sink) {
  switch (mode_) {
    case Mode::kContent:
      if (!held_.empty()) sink.Content(held_);
      break;
    case Mode::kElement:
      call_->Finish();
      if (!call_->started()) {
        consumed_ += call_->raw();
        Fail(sink);
      }
      break;
    case Mode::kAfterMarker:
    case Mode::kArray:
    case Mode::kName:
    case Mode::kCallId:
      consumed_ += held_;
      Fail(sink);
      break;
    default:
      break;
  }
  held_.clear();
  consumed_.clear();
  mode_ = Mode::kContent;
}

}  // namespace orcd
