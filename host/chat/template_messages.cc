#include "host/chat/template_messages.h"

#include "host/chat/jinja/json_dump.h"
#include "host/chat/jinja/json_value.h"
#include "host/common/status.h"

namespace orcd {
namespace {

using jinja::Dict;
using jinja::Value;

Value Object(std::initializer_list<std::pair<const char*, Value>> entries) {
  Dict d;
  for (const auto& [key, value] : entries) d.Set(key, value);
  return Value::FromDict(std::move(d));
}

bool ProbeShowsArguments(const jinja::JinjaTemplate& t, const ChatRenderInput& tokens,
                         const Value& arguments, bool null_content) {
  const Value call =
      Object({{"id", "call_probe"},
              {"type", "function"},
              {"function", Object({{"name", "probe_function"}, {"arguments", arguments}})}});
  ChatRenderInput input = tokens;
  input.messages = Value::List({
      Object({{"role", "user"}, {"content", "probe question"}}),
      null_content ? Object({{"role", "assistant"},
                             {"content", Value::None()},
                             {"tool_calls", Value::List({call})}})
                   : Object({{"role", "assistant"}, {"tool_calls", Value::List({call})}}),
      Object({{"role", "tool"}, {"tool_call_id", "call_probe"}, {"content", "probe answer"}}),
  });
  input.tools = Value::List({Object(
      {{"type", "function"},
       {"function",
        Object({{"name", "probe_function"},
                {"description", "probe"},
                {"parameters", Object({{"type", "object"}, {"properties", Object({})}})}})}})});
  try {
    return t.Render(ChatVariables(input)).find("probe_key") != std::string::npos;
  } catch (const Error&) {
    return false;
  }
}

// A tool call with its arguments parsed from a JSON string into an object.
Value WithArgumentObject(const Value& call) {
  if (!call.is_dict()) return call;
  const Value* function = call.AsDict().Find("function");
  if (function == nullptr || !function->is_dict()) return call;
  const Value* arguments = function->AsDict().Find("arguments");
  if (arguments == nullptr || !arguments->is_string()) return call;
  Value parsed;
  try {
    parsed = jinja::ParseJsonValue(arguments->AsString());
  } catch (const Error&) {
    return call;  // not JSON: the template gets the string as sent
  }
  if (!parsed.is_dict()) return call;
  Dict f;
  for (const auto& [key, value] : function->AsDict().entries()) {
    f.Set(key, key == "arguments" ? parsed : value);
  }
  Dict c;
  for (const auto& [key, value] : call.AsDict().entries()) {
    c.Set(key, key == "function" ? Value::FromDict(std::move(f)) : value);
  }
  return Value::FromDict(std::move(c));
}

// A tool call with its arguments object as a JSON string (OpenAI's form).
Value WithArgumentString(const Value& call) {
  if (!call.is_dict()) return call;
  const Value* function = call.AsDict().Find("function");
  if (function == nullptr || !function->is_dict()) return call;
  const Value* arguments = function->AsDict().Find("arguments");
  if (arguments == nullptr || !arguments->is_dict()) return call;
  Dict f;
  for (const auto& [key, value] : function->AsDict().entries()) {
    f.Set(key, key == "arguments" ? Value(jinja::JsonDump(value, {})) : value);
  }
  Dict c;
  for (const auto& [key, value] : call.AsDict().entries()) {
    c.Set(key, key == "function" ? Value::FromDict(std::move(f)) : value);
  }
  return Value::FromDict(std::move(c));
}

Value PrepareMessage(const Value& message, const TemplateMessageOptions& options) {
  if (!message.is_dict()) return message;
  const Dict& m = message.AsDict();
  const Value* calls = m.Find("tool_calls");
  const bool has_calls = calls != nullptr && calls->is_list() && !calls->AsList().empty();
  Dict out;
  for (const auto& [key, value] : m.entries()) {
    if (key == "content" && value.is_none() && has_calls && options.drop_null_content) continue;
    if (key == "tool_calls" && has_calls) {
      jinja::ValueList converted;
      for (const Value& call : value.AsList()) {
        converted.push_back(options.arguments_as_objects ? WithArgumentObject(call)
                                                         : WithArgumentString(call));
      }
      out.Set(key, Value::List(std::move(converted)));
      continue;
    }
    out.Set(key, value);
  }
  const Value* reasoning = m.Find("reasoning_content");
  if (reasoning != nullptr && reasoning->is_string() && m.Find("thinking") == nullptr) {
    out.Set("thinking", *reasoning);
  }
  return Value::FromDict(std::move(out));
}

}  // namespace

TemplateMessageOptions ProbeTemplateMessageOptions(const jinja::JinjaTemplate& chat_template,
                                                   const ChatRenderInput& tokens) {
  const Value as_object = Object({{"probe_key", "probe_value"}});
  const Value as_string("{\"probe_key\": \"probe_value\"}");
  for (const bool objects : {true, false}) {
    for (const bool null_content : {false, true}) {
      if (ProbeShowsArguments(chat_template, tokens, objects ? as_object : as_string,
                              null_content)) {
        return {.arguments_as_objects = objects, .drop_null_content = !null_content};
      }
    }
  }
  return {};
}

Value PrepareTemplateMessages(const Value& messages, const TemplateMessageOptions& options) {
  if (!messages.is_list()) return messages;
  jinja::ValueList out;
  out.reserve(messages.AsList().size());
  for (const Value& m : messages.AsList()) out.push_back(PrepareMessage(m, options));
  return Value::List(std::move(out));
}

}  // namespace orcd
