#include "host/server/responses_output.h"

#include "host/common/json_escape.h"
#include "host/server/openai_chat_output.h"

namespace orcd {
namespace {

// A content part of a message or reasoning item.
std::string PartJson(bool reasoning, const std::string& text) {
  return reasoning
             ? "{\"type\":\"reasoning_text\",\"text\":" + JsonQuote(text) + "}"
             : "{\"type\":\"output_text\",\"text\":" + JsonQuote(text) + ",\"annotations\":[]}";
}

}  // namespace

std::string ResponsesOutput::ItemJson(const Item& item, bool done) const {
  const std::string head = "{\"id\":" + JsonQuote(item.id);
  const std::string status = ",\"status\":" + JsonQuote(done ? item.status : "in_progress");
  switch (item.kind) {
    case Kind::kReasoning:
      return head + ",\"type\":\"reasoning\",\"summary\":[],\"content\":[" +
             (done ? PartJson(true, item.text) : "") + "]" + status + "}";
    case Kind::kMessage:
      return head + ",\"type\":\"message\"" + status + ",\"role\":\"assistant\",\"content\":[" +
             (done ? PartJson(false, item.text) : "") + "]}";
    case Kind::kFunctionCall:
      return head + ",\"type\":\"function_call\"" + status +
             ",\"arguments\":" + JsonQuote(done ? item.text : "") +
             ",\"call_id\":" + JsonQuote(item.call_id) + ",\"name\":" + JsonQuote(item.name) + "}";
  }
  return head + "}";
}

void ResponsesOutput::Event(std::string_view type, const std::string& fields) {
  if (!send_) return;
  send_(std::string(type), "{\"type\":" + JsonQuote(type) +
                               ",\"sequence_number\":" + std::to_string(sequence_++) +
                               (fields.empty() ? "" : "," + fields) + "}");
}

std::string ResponsesOutput::Where() const {
  return "\"item_id\":" + JsonQuote(items_.back().id) +
         ",\"output_index\":" + std::to_string(items_.size() - 1);
}

ResponsesOutput::Item& ResponsesOutput::Open(Kind kind) {
  if (open_ && items_.back().kind == kind && kind != Kind::kFunctionCall) return items_.back();
  Close("completed");
  static constexpr const char* kPrefixes[] = {"rs_", "msg_", "fc_"};
  items_.push_back({kind, NewCallId(kPrefixes[static_cast<int>(kind)]), "", "", ""});
  open_ = true;
  return items_.back();
}

void ResponsesOutput::Close(const std::string& status) {
  if (!open_) return;
  open_ = false;
  Item& item = items_.back();
  item.status = status;
  const std::string index = ",\"output_index\":" + std::to_string(items_.size() - 1);
  if (item.kind == Kind::kFunctionCall) {
    Event("response.function_call_arguments.done",
          Where() + ",\"arguments\":" + JsonQuote(item.text));
  } else {
    const bool reasoning = item.kind == Kind::kReasoning;
    Event(reasoning ? "response.reasoning_text.done" : "response.output_text.done",
          Where() + ",\"content_index\":0,\"text\":" + JsonQuote(item.text));
    Event("response.content_part.done",
          Where() + ",\"content_index\":0,\"part\":" + PartJson(reasoning, item.text));
  }
  Event("response.output_item.done", index.substr(1) + ",\"item\":" + ItemJson(item, true));
}

void ResponsesOutput::AppendText(Kind kind, std::string_view text) {
  const bool opens = !open_ || items_.back().kind != kind;
  Item& item = Open(kind);
  const bool reasoning = kind == Kind::kReasoning;
  if (opens) {
    Event("response.output_item.added", "\"output_index\":" + std::to_string(items_.size() - 1) +
                                            ",\"item\":" + ItemJson(item, false));
    Event("response.content_part.added",
          Where() + ",\"content_index\":0,\"part\":" + PartJson(reasoning, ""));
  }
  item.text.append(text);
}

void ResponsesOutput::Content(std::string_view text) {
  if (text.empty()) return;
  AppendText(Kind::kMessage, text);
  Event("response.output_text.delta",
        Where() + ",\"content_index\":0,\"delta\":" + JsonQuote(text) + ",\"logprobs\":[]");
}

void ResponsesOutput::Reasoning(std::string_view text) {
  if (text.empty()) return;
  AppendText(Kind::kReasoning, text);
  reasoning_bytes_ += text.size();
  Event("response.reasoning_text.delta",
        Where() + ",\"content_index\":0,\"delta\":" + JsonQuote(text));
}

void ResponsesOutput::ToolCallStart(std::string_view name) {
  Item& item = Open(Kind::kFunctionCall);
  item.call_id = NewCallId("call_");
  item.name = std::string(name);
  Event("response.output_item.added", "\"output_index\":" + std::to_string(items_.size() - 1) +
                                          ",\"item\":" + ItemJson(item, false));
}

void ResponsesOutput::ToolCallArguments(std::string_view fragment) {
  if (!open_ || items_.back().kind != Kind::kFunctionCall || fragment.empty()) return;
  items_.back().text.append(fragment);
  Event("response.function_call_arguments.delta", Where() + ",\"delta\":" + JsonQuote(fragment));
}

void ResponsesOutput::Finish(bool complete) { Close(complete ? "completed" : "incomplete"); }

bool ResponsesOutput::has_function_call() const {
  for (const Item& item : items_) {
    if (item.kind == Kind::kFunctionCall) return true;
  }
  return false;
}

std::string ResponsesOutput::OutputJson() const {
  std::string out = "[";
  for (size_t k = 0; k < items_.size(); ++k) {
    if (k > 0) out += ",";
    out += ItemJson(items_[k], true);
  }
  return out + "]";
}

}  // namespace orcd
