#include "host/server/openai_chat_request.h"

#include <algorithm>
#include <array>

#include "host/chat/jinja/json_value.h"
#include "host/common/status.h"
#include "host/server/request_validation.h"
#include "host/server/value_fields.h"

namespace orcd {
namespace {

using jinja::Dict;
using jinja::Value;

// A message's content: a string, null, or text parts joined into one string
// (templates concatenate content as text).
Value Content(const Value& v, const std::string& field) {
  if (v.is_none() || v.is_string()) return v;
  if (!v.is_list()) FailField(field, "must be a string or an array of text parts");
  std::string text;
  for (size_t p = 0; p < v.AsList().size(); ++p) {
    const std::string part_field = field + "[" + std::to_string(p) + "]";
    const Dict& part = ObjectAt(v.AsList()[p], part_field);
    const Value* type = part.Find("type");
    if (type == nullptr || !type->is_string() || type->AsString() != "text") {
      FailField(part_field, "must be a text part (only text parts are supported)");
    }
    text += StringAt(part, "text", part_field + ".text");
  }
  return Value(text);
}

void CheckToolCalls(const Value& calls, const std::string& field) {
  if (!calls.is_list()) FailField(field, "must be an array");
  for (size_t k = 0; k < calls.AsList().size(); ++k) {
    const std::string call_field = field + "[" + std::to_string(k) + "]";
    const Dict& call = ObjectAt(calls.AsList()[k], call_field);
    const Value* function = call.Find("function");
    if (function == nullptr) FailField(call_field + ".function", "is required");
    const Dict& f = ObjectAt(*function, call_field + ".function");
    StringAt(f, "name", call_field + ".function.name");
    const Value* arguments = f.Find("arguments");
    if (arguments != nullptr && !arguments->is_string() && !arguments->is_dict()) {
      FailField(call_field + ".function.arguments", "must be a string");
    }
  }
}

Value Messages(const Dict& body) {
  const Value* messages = body.Find("messages");
  if (messages == nullptr || !messages->is_list() || messages->AsList().empty()) {
    FailField("messages", "must be a non-empty array");
  }
  jinja::ValueList out;
  for (size_t k = 0; k < messages->AsList().size(); ++k) {
    const std::string field = "messages[" + std::to_string(k) + "]";
    const Value& m = messages->AsList()[k];
    if (!m.is_dict()) FailField(field, "needs a string role");
    const Value* role = m.AsDict().Find("role");
    if (role == nullptr || !role->is_string()) FailField(field, "needs a string role");
    Dict message;
    for (const auto& [key, value] : m.AsDict().entries()) {
      if (key == "content") {
        message.Set(key, Content(value, field + ".content"));
      } else {
        if (key == "tool_calls" && !value.is_none()) CheckToolCalls(value, field + ".tool_calls");
        message.Set(key, value);
      }
    }
    out.push_back(Value::FromDict(std::move(message)));
  }
  return Value::List(std::move(out));
}

// The tools list (None when absent or empty) and the function names it offers.
Value Tools(const Dict& body, std::vector<std::string>& names) {
  const Value* tools = PresentAt(body, "tools");
  if (tools == nullptr) return Value::None();
  if (!tools->is_list()) FailField("tools", "must be an array");
  for (size_t k = 0; k < tools->AsList().size(); ++k) {
    const std::string field = "tools[" + std::to_string(k) + "]";
    const Dict& tool = ObjectAt(tools->AsList()[k], field);
    const Value* type = tool.Find("type");
    if (type == nullptr || !type->is_string() || type->AsString() != "function") {
      FailField(field + ".type", "must be \"function\"");
    }
    const Value* function = tool.Find("function");
    if (function == nullptr) FailField(field + ".function", "is required");
    const std::string& name =
        StringAt(ObjectAt(*function, field + ".function"), "name", field + ".function.name");
    if (name.empty()) FailField(field + ".function.name", "must not be empty");
    names.push_back(name);
  }
  return tools->AsList().empty() ? Value::None() : *tools;
}

// Applies tool_choice: "none" withdraws the tools; "required" and a named
// function need tools (and that function among them). Without constrained
// decoding they are honoured as "auto": the template sees the tools, and
// whatever the model writes is parsed.
void ToolChoice(const Dict& body, const std::vector<std::string>& names, Value& tools) {
  const Value* choice = PresentAt(body, "tool_choice");
  if (choice == nullptr) return;
  if (choice->is_string()) {
    const std::string& c = choice->AsString();
    if (c == "none") {
      tools = Value::None();
    } else if (c == "required") {
      if (tools.is_none()) FailField("tool_choice", "\"required\" needs tools");
    } else if (c != "auto") {
      FailField("tool_choice", "must be \"none\", \"auto\", \"required\" or a function");
    }
    return;
  }
  const Dict& named = ObjectAt(*choice, "tool_choice");
  const Value* function = named.Find("function");
  if (function == nullptr) FailField("tool_choice.function", "is required");
  const std::string& name =
      StringAt(ObjectAt(*function, "tool_choice.function"), "name", "tool_choice.function.name");
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    FailField("tool_choice.function.name", "names no function in tools");
  }
}

void TemplateKwargs(const Dict& body, Dict& kwargs) {
  if (const Value* kw = PresentAt(body, "chat_template_kwargs")) {
    // The variables orcd sets itself cannot be replaced from a request.
    static constexpr std::array<std::string_view, 6> kReserved = {
        "messages", "tools", "documents", "add_generation_prompt", "bos_token", "eos_token"};
    for (const auto& [key, value] : ObjectAt(*kw, "chat_template_kwargs").entries()) {
      if (std::find(kReserved.begin(), kReserved.end(), key) != kReserved.end()) {
        FailField("chat_template_kwargs." + key, "is set by the server");
      }
      kwargs.Set(key, value);
    }
  }
  if (const Value* effort = PresentAt(body, "reasoning_effort")) {
    static constexpr std::array<std::string_view, 4> kEfforts = {"minimal", "low", "medium",
                                                                 "high"};
    if (!effort->is_string() ||
        std::find(kEfforts.begin(), kEfforts.end(), effort->AsString()) == kEfforts.end()) {
      FailField("reasoning_effort", "must be \"minimal\", \"low\", \"medium\" or \"high\"");
    }
    kwargs.Set("reasoning_effort", *effort);
  }
}

}  // namespace

ParsedChatFields ParseChatFields(const std::string& body) {
  const Value parsed = ParseBodyValue(body);
  const Dict& o = ObjectAt(parsed, "");
  ParsedChatFields out;
  out.request.messages = Messages(o);
  std::vector<std::string> names;
  out.request.tools = Tools(o, names);
  ToolChoice(o, names, out.request.tools);
  TemplateKwargs(o, out.request.kwargs);
  out.tools_enabled = !out.request.tools.is_none();
  return out;
}

}  // namespace orcd
