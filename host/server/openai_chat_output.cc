#include "host/server/openai_chat_output.h"

#include <random>

#include "host/common/json_escape.h"

namespace orcd {
std::string NewCallId(std::string_view prefix) {
  static constexpr std::string_view kAlphabet =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string id(prefix);
  for (int i = 0; i < 24; ++i) id += kAlphabet[rng() % kAlphabet.size()];
  return id;
}

void OpenAiChatOutput::Send(const std::string& delta) {
  if (send_delta_) {
    send_delta_("{\"delta\":" + delta + ",\"index\":" + std::to_string(choice_) +
                ",\"finish_reason\":null}");
  }
}

void OpenAiChatOutput::Content(std::string_view text) {
  if (text.empty()) return;
  message_.Content(text);
  Send("{\"content\":" + JsonQuote(text) + "}");
}

void OpenAiChatOutput::Reasoning(std::string_view text) {
  if (text.empty()) return;
  message_.Reasoning(text);
  Send("{\"reasoning_content\":" + JsonQuote(text) + "}");
}

void OpenAiChatOutput::ToolCallStart(std::string_view name) {
  message_.ToolCallStart(name);
  ids_.push_back(NewCallId("call_"));
  Send("{\"tool_calls\":[{\"index\":" + std::to_string(ids_.size() - 1) + ",\"id\":" +
       JsonQuote(ids_.back()) + ",\"type\":\"function\",\"function\":{\"name\":" + JsonQuote(name) +
       ",\"arguments\":\"\"}}]}");
}

void OpenAiChatOutput::ToolCallArguments(std::string_view fragment) {
  if (fragment.empty() || ids_.empty()) return;
  message_.ToolCallArguments(fragment);
  Send("{\"tool_calls\":[{\"index\":" + std::to_string(ids_.size() - 1) +
       ",\"function\":{\"arguments\":" + JsonQuote(fragment) + "}}]}");
}

std::string OpenAiChatOutput::MessageJson() const {
  std::string json = "{\"role\":\"assistant\",\"content\":";
  json += message_.content.empty() && has_tool_calls() ? "null" : JsonQuote(message_.content);
  if (!message_.reasoning.empty())
    json += ",\"reasoning_content\":" + JsonQuote(message_.reasoning);
  if (has_tool_calls()) {
    json += ",\"tool_calls\":[";
    for (size_t i = 0; i < message_.tool_calls.size(); ++i) {
      const ParsedToolCall& call = message_.tool_calls[i];
      if (i > 0) json += ",";
      json += "{\"id\":" + JsonQuote(ids_[i]) +
              ",\"type\":\"function\",\"function\":{\"name\":" + JsonQuote(call.name) +
              ",\"arguments\":" + JsonQuote(call.arguments) + "}}";
    }
    json += "]";
  }
  return json + "}";
}

}  // namespace orcd
