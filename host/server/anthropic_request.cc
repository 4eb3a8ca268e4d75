#include "host/server/anthropic_request.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>

#include "host/chat/jinja/json_value.h"
#include "host/common/status.h"
#include "host/server/request_validation.h"
#include "host/server/value_fields.h"

namespace orcd {
namespace {

using jinja::Dict;
using jinja::Value;

std::string BlockType(const Dict& block, const std::string& field) {
  return StringAt(block, "type", field + ".type");
}

// A string, or text blocks joined (system prompts, tool results).
std::string Text(const Value& v, const std::string& field) {
  if (v.is_string()) return v.AsString();
  if (!v.is_list()) FailField(field, "must be a string or an array of text blocks");
  std::string text;
  for (size_t k = 0; k < v.AsList().size(); ++k) {
    const std::string block_field = field + "[" + std::to_string(k) + "]";
    const Dict& block = ObjectAt(v.AsList()[k], block_field);
    if (BlockType(block, block_field) != "text") {
      FailField(block_field + ".type", "must be \"text\" (only text blocks are supported here)");
    }
    text += StringAt(block, "text", block_field + ".text");
  }
  return text;
}

Value Message(std::string role, std::string content) {
  Dict m;
  m.Set("role", Value(std::move(role)));
  m.Set("content", Value(std::move(content)));
  return Value::FromDict(std::move(m));
}

// One Anthropic turn as template messages: tool results first (one "tool"
// message each), then the turn's text and, for the assistant, its tool calls.
void AppendTurn(const Dict& turn, const std::string& field, jinja::ValueList& out) {
  const std::string& role = StringAt(turn, "role", field + ".role");
  if (role != "user" && role != "assistant") {
    FailField(field + ".role", "must be \"user\" or \"assistant\"");
  }
  const Value* content = turn.Find("content");
  if (content == nullptr) FailField(field + ".content", "is required");
  if (content->is_string()) {
    out.push_back(Message(role, content->AsString()));
    return;
  }
  if (!content->is_list()) FailField(field + ".content", "must be a string or an array of blocks");
  std::string text;
  jinja::ValueList tool_calls;
  for (size_t k = 0; k < content->AsList().size(); ++k) {
    const std::string block_field = field + ".content[" + std::to_string(k) + "]";
    const Dict& block = ObjectAt(content->AsList()[k], block_field);
    const std::string type = BlockType(block, block_field);
    if (type == "text") {
      text += StringAt(block, "text", block_field + ".text");
    } else if (type == "tool_use" && role == "assistant") {
      const Value* input = block.Find("input");
      if (input == nullptr || !input->is_dict())
        FailField(block_field + ".input", "must be an object");
      Dict function;
      function.Set("name", Value(StringAt(block, "name", block_field + ".name")));
      function.Set("arguments", *input);
      Dict call;
      call.Set("id", Value(StringAt(block, "id", block_field + ".id")));
      call.Set("type", Value("function"));
      call.Set("function", Value::FromDict(std::move(function)));
      tool_calls.push_back(Value::FromDict(std::move(call)));
    } else if (type == "tool_result" && role == "user") {
      Dict result;
      result.Set("role", Value("tool"));
      result.Set("tool_call_id",
                 Value(StringAt(block, "tool_use_id", block_field + ".tool_use_id")));
      const Value* result_content = block.Find("content");
      result.Set("content", Value(result_content == nullptr || result_content->is_none()
                                      ? std::string()
                                      : Text(*result_content, block_field + ".content")));
      out.push_back(Value::FromDict(std::move(result)));
    } else {
      FailField(block_field + ".type",
                "\"" + type + "\" blocks are not supported in a " + role + " turn by this worker");
    }
  }
  if (text.empty() && tool_calls.empty()) return;  // a turn of tool results only
  Dict m;
  m.Set("role", Value(role));
  m.Set("content", tool_calls.empty() || !text.empty() ? Value(text) : Value::None());
  if (!tool_calls.empty()) m.Set("tool_calls", Value::List(std::move(tool_calls)));
  out.push_back(Value::FromDict(std::move(m)));
}

// tools: [{name, description, input_schema}] in OpenAI's function form.
Value Tools(const Dict& body) {
  const Value* tools = body.Find("tools");
  if (tools == nullptr || tools->is_none()) return Value::None();
  if (!tools->is_list()) FailField("tools", "must be an array");
  jinja::ValueList out;
  for (size_t k = 0; k < tools->AsList().size(); ++k) {
    const std::string field = "tools[" + std::to_string(k) + "]";
    const Dict& tool = ObjectAt(tools->AsList()[k], field);
    if (const Value* type = tool.Find("type");
        type != nullptr && type->is_string() && type->AsString() != "custom") {
      FailField(field + ".type", "server tools (" + type->AsString() + ") are not supported");
    }
    Dict function;
    const std::string& name = StringAt(tool, "name", field + ".name");
    if (name.empty()) FailField(field + ".name", "must not be empty");
    function.Set("name", Value(name));
    if (const Value* d = tool.Find("description"); d != nullptr && d->is_string()) {
      function.Set("description", *d);
    }
    const Value* schema = tool.Find("input_schema");
    if (schema == nullptr || !schema->is_dict())
      FailField(field + ".input_schema", "must be an object");
    function.Set("parameters", *schema);
    Dict wrapped;
    wrapped.Set("type", Value("function"));
    wrapped.Set("function", Value::FromDict(std::move(function)));
    out.push_back(Value::FromDict(std::move(wrapped)));
  }
  return out.empty() ? Value::None() : Value::List(std::move(out));
}

void ChatFields(const std::string& body, AnthropicRequest& r) {
  const Value parsed = ParseBodyValue(body);
  const Dict& o = ObjectAt(parsed, "");
  jinja::ValueList messages;
  if (const Value* system = o.Find("system"); system != nullptr && !system->is_none()) {
    messages.push_back(Message("system", Text(*system, "system")));
  }
  const Value* turns = o.Find("messages");
  if (turns == nullptr || !turns->is_list() || turns->AsList().empty()) {
    FailField("messages", "must be a non-empty array");
  }
  for (size_t k = 0; k < turns->AsList().size(); ++k) {
    const std::string field = "messages[" + std::to_string(k) + "]";
    AppendTurn(ObjectAt(turns->AsList()[k], field), field, messages);
  }
  r.chat.messages = Value::List(std::move(messages));
  r.chat.tools = Tools(o);
  if (const Value* choice = o.Find("tool_choice"); choice != nullptr && !choice->is_none()) {
    const std::string type = StringAt(ObjectAt(*choice, "tool_choice"), "type", "tool_choice.type");
    if (type == "none") {
      r.chat.tools = Value::None();
    } else if (type != "auto" && type != "any" && type != "tool") {
      FailField("tool_choice.type", "must be \"auto\", \"any\", \"tool\" or \"none\"");
    } else if (type != "auto" && r.chat.tools.is_none()) {
      FailField("tool_choice", "\"" + type + "\" needs tools");
    }
  }
  r.tools_enabled = !r.chat.tools.is_none();
}

// tool_choice "any" (one of the tools) or {"type": "tool", "name"} (ChatFields
// checked their shapes); each input_schema compiled once to refuse what
// constrained decoding cannot honour.
std::vector<structured::ToolSchema> ForcedTools(const Poco::JSON::Object::Ptr& o) {
  const Poco::JSON::Object::Ptr choice = o->getObject("tool_choice");
  if (!choice) return {};
  const std::string type = choice->optValue<std::string>("type", "");
  if (type != "any" && type != "tool") return {};
  const std::string only = type == "tool" ? choice->optValue<std::string>("name", "") : "";
  std::vector<structured::ToolSchema> out;
  const Poco::JSON::Array::Ptr tools = o->getArray("tools");
  for (unsigned i = 0; tools && i < tools->size(); ++i) {
    const Poco::JSON::Object::Ptr tool = tools->getObject(i);
    structured::ToolSchema t;
    t.name = tool->optValue<std::string>("name", "");
    if (!only.empty() && t.name != only) continue;
    t.parameters = tool->get("input_schema");
    SchemaGrammar(t.parameters, "tools[" + std::to_string(i) + "].input_schema");
    out.push_back(std::move(t));
  }
  if (out.empty()) FailField("tool_choice.name", "names no tool in tools");
  return out;
}

}  // namespace

std::variant<AnthropicRequest, ValidationError> ParseAnthropicRequest(const std::string& body,
                                                                      const RequestLimits& limits,
                                                                      bool count_only) {
  return Validated<AnthropicRequest>([&] {
    const Poco::JSON::Object::Ptr o = ParseJsonObject(body);
    auto present = [&](const char* k) { return o->has(k) && !o->get(k).isEmpty(); };
    AnthropicRequest r;
    if (present("model")) r.model = StringField(o->get("model"), "model");
    if (present("thinking")) {
      const Poco::JSON::Object::Ptr thinking = o->getObject("thinking");
      if (!thinking || !thinking->has("type"))
        FailField("thinking", "must be an object with a type");
      if (thinking->getValue<std::string>("type") != "disabled") {
        FailField("thinking", "extended thinking is not supported by this worker yet");
      }
    }
    if (!count_only) {
      if (!present("max_tokens")) FailField("max_tokens", "is required");
      r.max_tokens = IntegerField(o->get("max_tokens"), "max_tokens", 1, limits.max_tokens);
    }
    if (present("stream")) r.stream = BoolField(o->get("stream"), "stream");
    r.sampling.temperature =
        present("temperature") ? NumberField(o->get("temperature"), "temperature", 0, 1) : 1.0;
    if (present("top_p")) r.sampling.top_p = NumberField(o->get("top_p"), "top_p", 0, 1);
    if (present("top_k")) {
      r.sampling.top_k = IntegerField(o->get("top_k"), "top_k", 0, limits.vocab_size);
    }
    r.sampling.seed = DrawSeed();
    if (present("stop_sequences")) {
      const Poco::JSON::Array::Ptr stops = o->getArray("stop_sequences");
      if (!stops) FailField("stop_sequences", "must be an array of strings");
      if (static_cast<int64_t>(stops->size()) > limits.max_stop_strings) {
        FailField("stop_sequences",
                  "must hold at most " + std::to_string(limits.max_stop_strings) + " strings");
      }
      for (size_t k = 0; k < stops->size(); ++k) {
        r.stop.push_back(StringField(stops->get(static_cast<unsigned>(k)),
                                     "stop_sequences[" + std::to_string(k) + "]"));
      }
    }
    ChatFields(body, r);
    if (r.tools_enabled && present("tool_choice")) r.forced_tools = ForcedTools(o);
    return r;
  });
}

}  // namespace orcd
