#include "host/chat/output/harmony_parser.h"

#include "host/chat/output/json_scan.h"

namespace orcd {
namespace {

constexpr std::string_view kStart = "<|start|>";
constexpr std::string_view kChannel = "<|channel|>";
constexpr std::string_view kMessage = "<|message|>";
constexpr std::string_view kEnd = "<|end|>";
constexpr std::string_view kConstrain = "<|constrain|>";
// A header longer than this without <|message|> is not a header.
constexpr size_t kMaxHeader = 512;

// What a header may begin with, right after "<|start|>assistant" (or after
// "<|start|>" between messages, where the role comes first).
bool CanBeginHeader(std::string_view text, bool after_start) {
  for (const std::string_view opener : {kChannel, kMessage, kConstrain, std::string_view(" to=")}) {
    const size_t n = std::min(text.size(), opener.size());
    if (text.substr(0, n) == opener.substr(0, n)) return true;
  }
  return after_start;
}

// The word after `key` in the header, up to a space or the next "<|".
std::string HeaderField(std::string_view header, std::string_view key) {
  const size_t at = header.find(key);
  if (at == std::string_view::npos) return "";
  std::string_view rest = header.substr(at + key.size());
  size_t end = 0;
  while (end < rest.size() && rest[end] != ' ' && rest[end] != '<' && rest[end] != '\n') ++end;
  return std::string(rest.substr(0, end));
}

}  // namespace

void HarmonyParser::StartBody(ChatOutputSink& sink) {
  const std::string channel = HeaderField(held_, kChannel);
  const std::string recipient = HeaderField(held_, "to=");
  if (tools_enabled_ && recipient.starts_with("functions.") && recipient.size() > 10) {
    route_ = Route::kToolCall;
    sink.ToolCallStart(std::string_view(recipient).substr(10));
  } else if (channel == "analysis") {
    route_ = Route::kReasoning;
  } else {
    route_ = Route::kContent;
  }
  held_.clear();
  mode_ = Mode::kBody;
}

void HarmonyParser::Emit(std::string_view text, ChatOutputSink& sink) {
  if (text.empty()) return;
  switch (route_) {
    case Route::kContent:
      sink.Content(text);
      break;
    case Route::kReasoning:
      sink.Reasoning(text);
      break;
    case Route::kToolCall:
      sink.ToolCallArguments(text);
      break;
  }
}

void HarmonyParser::Push(std::string_view input, ChatOutputSink& sink) {
  std::string text(input);
  while (!text.empty()) {
    switch (mode_) {
      case Mode::kRaw:
        sink.Content(text);
        return;
      case Mode::kHeader: {
        held_ += text;
        text.clear();
        const size_t message = held_.find(kMessage);
        if (message == std::string::npos) {
          if (!CanBeginHeader(held_, after_start_) || held_.size() > kMaxHeader) {
            text = std::move(held_);  // not harmony: the rest is plain text
            held_.clear();
            route_ = Route::kContent;
            mode_ = Mode::kRaw;
          }
          break;
        }
        text = held_.substr(message + kMessage.size());
        held_.resize(message);
        StartBody(sink);
        break;
      }
      case Mode::kBody: {
        const std::string buffer = held_ + text;
        held_.clear();
        const size_t end = std::min(buffer.find(kEnd), buffer.find(kStart));
        if (end == std::string::npos) {
          const size_t hold = PartialMarkerLength(buffer, {kEnd, kStart});
          Emit(std::string_view(buffer).substr(0, buffer.size() - hold), sink);
          held_ = buffer.substr(buffer.size() - hold);
          return;
        }
        Emit(std::string_view(buffer).substr(0, end), sink);
        const bool ended = buffer.compare(end, kEnd.size(), kEnd) == 0;
        text = buffer.substr(end + (ended ? kEnd.size() : 0));
        mode_ = Mode::kBetween;
        break;
      }
      case Mode::kBetween: {
        const std::string buffer = held_ + text;
        held_.clear();
        const std::string_view rest = TrimLeft(buffer);
        if (rest.empty()) return;
        if (rest.starts_with(kStart)) {
          text = std::string(rest.substr(kStart.size()));
          after_start_ = true;
          mode_ = Mode::kHeader;
        } else if (kStart.starts_with(rest)) {
          held_ = buffer;
          return;
        } else {
          text = std::string(rest);
          route_ = Route::kContent;
          mode_ = Mode::kRaw;
        }
        break;
      }
    }
  }
}

void HarmonyParser::Finish(ChatOutputSink& sink) {
  if (mode_ == Mode::kHeader && !held_.empty()) {
    sink.Content(held_);  // a header that never opened a message
  } else if (mode_ == Mode::kBody) {
    Emit(held_, sink);
  }
  held_.clear();
  mode_ = Mode::kHeader;
  after_start_ = false;
}

}  // namespace orcd
