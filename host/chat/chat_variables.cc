#include "host/chat/chat_variables.h"

#include "host/common/status.h"

namespace orcd {
namespace {

[[noreturn]] void Malformed(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "chat conversation: " + what);
}

std::optional<std::string> OptionalToken(const jinja::Dict& obj, std::string_view key) {
  const jinja::Value* v = obj.Find(key);
  if (v == nullptr || v->is_none()) return std::nullopt;
  if (!v->is_string()) Malformed("'" + std::string(key) + "' must be a string or null");
  return v->AsString();
}

}  // namespace

jinja::Dict ChatVariables(const ChatRenderInput& input) {
  jinja::Dict vars;
  vars.Set("messages", input.messages);
  vars.Set("tools", input.tools);
  vars.Set("documents", jinja::Value::None());
  vars.Set("add_generation_prompt", jinja::Value(input.add_generation_prompt));
  if (input.bos_token) vars.Set("bos_token", jinja::Value(*input.bos_token));
  if (input.eos_token) vars.Set("eos_token", jinja::Value(*input.eos_token));
  for (const auto& [key, value] : input.extra.entries()) vars.Set(key, value);
  return vars;
}

ChatRenderInput ChatRenderInputFromCase(const jinja::Value& case_object) {
  if (!case_object.is_dict()) Malformed("expected a JSON object");
  const jinja::Dict& obj = case_object.AsDict();
  ChatRenderInput input;
  const jinja::Value* messages = obj.Find("messages");
  if (messages == nullptr || !messages->is_list()) Malformed("'messages' must be a list");
  input.messages = *messages;
  if (const jinja::Value* tools = obj.Find("tools")) {
    if (!tools->is_none() && !tools->is_list()) Malformed("'tools' must be a list or null");
    input.tools = *tools;
  }
  if (const jinja::Value* gen = obj.Find("add_generation_prompt")) {
    if (!gen->is_bool()) Malformed("'add_generation_prompt' must be true or false");
    input.add_generation_prompt = gen->AsBool();
  }
  if (const jinja::Value* kwargs = obj.Find("kwargs")) {
    if (!kwargs->is_none() && !kwargs->is_dict()) Malformed("'kwargs' must be an object");
    if (kwargs->is_dict()) input.extra = kwargs->AsDict();
  }
  input.bos_token = OptionalToken(obj, "bos_token");
  input.eos_token = OptionalToken(obj, "eos_token");
  return input;
}

}  // namespace orcd
