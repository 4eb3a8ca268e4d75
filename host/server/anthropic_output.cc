#include "host/server/anthropic_output.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "host/common/json_escape.h"
#include "host/server/openai_chat_output.h"

namespace orcd {
namespace {

// The tool input as a JSON object: the model's arguments when they are one,
// else {} (the raw text still went out in the stream's input_json_delta).
std::string InputObject(const std::string& arguments) {
  try {
    Poco::JSON::Parser parser;
    if (parser.parse(arguments).type() == typeid(Poco::JSON::Object::Ptr)) return arguments;
  } catch (const std::exception&) {
  }
  return "{}";
}

}  // namespace

AnthropicOutput::Block& AnthropicOutput::Open(Kind kind) {
  if (open_ && blocks_.back().kind == kind && kind != Kind::kToolUse) return blocks_.back();
  Close();
  blocks_.push_back({kind, "", "", ""});
  open_ = true;
  if (kind != Kind::kToolUse && send_) {
    const std::string index = std::to_string(blocks_.size() - 1);
    send_("content_block_start",
          "{\"type\":\"content_block_start\",\"index\":" + index + ",\"content_block\":" +
              (kind == Kind::kText ? "{\"type\":\"text\",\"text\":\"\"}"
                                   : "{\"type\":\"thinking\",\"thinking\":\"\"}") +
              "}");
  }
  return blocks_.back();
}

void AnthropicOutput::Close() {
  if (!open_) return;
  open_ = false;
  if (send_) {
    send_("content_block_stop",
          "{\"type\":\"content_block_stop\",\"index\":" + std::to_string(blocks_.size() - 1) + "}");
  }
}

void AnthropicOutput::Delta(const std::string& delta) {
  if (send_) {
    send_("content_block_delta",
          "{\"type\":\"content_block_delta\",\"index\":" + std::to_string(blocks_.size() - 1) +
              ",\"delta\":" + delta + "}");
  }
}

void AnthropicOutput::Content(std::string_view text) {
  if (text.empty()) return;
  Open(Kind::kText).text.append(text);
  Delta("{\"type\":\"text_delta\",\"text\":" + JsonQuote(text) + "}");
}

void AnthropicOutput::Reasoning(std::string_view text) {
  if (text.empty()) return;
  Open(Kind::kThinking).text.append(text);
  Delta("{\"type\":\"thinking_delta\",\"thinking\":" + JsonQuote(text) + "}");
}

void AnthropicOutput::ToolCallStart(std::string_view name) {
  Block& b = Open(Kind::kToolUse);
  b.id = NewCallId("toolu_");
  b.name = std::string(name);
  if (send_) {
    send_("content_block_start",
          "{\"type\":\"content_block_start\",\"index\":" + std::to_string(blocks_.size() - 1) +
              ",\"content_block\":{\"type\":\"tool_use\",\"id\":" + JsonQuote(b.id) +
              ",\"name\":" + JsonQuote(b.name) + ",\"input\":{}}}");
  }
}

void AnthropicOutput::ToolCallArguments(std::string_view fragment) {
  if (!open_ || blocks_.back().kind != Kind::kToolUse || fragment.empty()) return;
  blocks_.back().text.append(fragment);
  Delta("{\"type\":\"input_json_delta\",\"partial_json\":" + JsonQuote(fragment) + "}");
}

void AnthropicOutput::Finish() { Close(); }

bool AnthropicOutput::has_tool_use() const {
  for (const Block& b : blocks_) {
    if (b.kind == Kind::kToolUse) return true;
  }
  return false;
}

std::string AnthropicOutput::ContentJson() const {
  std::string out = "[";
  for (size_t k = 0; k < blocks_.size(); ++k) {
    const Block& b = blocks_[k];
    if (k > 0) out += ",";
    switch (b.kind) {
      case Kind::kText:
        out += "{\"type\":\"text\",\"text\":" + JsonQuote(b.text) + "}";
        break;
      case Kind::kThinking:
        out += "{\"type\":\"thinking\",\"thinking\":" + JsonQuote(b.text) + ",\"signature\":\"\"}";
        break;
      case Kind::kToolUse:
        out += "{\"type\":\"tool_use\",\"id\":" + JsonQuote(b.id) +
               ",\"name\":" + JsonQuote(b.name) +
               ",\"input\":" + InputObject(b.text.empty() ? "{}" : b.text) + "}";
        break;
    }
  }
  return out + "]";
}

}  // namespace orcd
