#include "host/server/responses_request.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Stringifier.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <sstream>

#include "host/chat/jinja/json_value.h"
#include "host/common/json_escape.h"
#include "host/common/status.h"
#include "host/server/request_validation.h"
#include "host/server/value_fields.h"
#include "host/structured/json_schema_grammar.h"

namespace orcd {
namespace {

using jinja::Dict;
using jinja::Value;

// A message's content: a string, or its text parts joined (input_text,
// output_text and refusal parts; images, files and audio are refused).
std::string ContentText(const Value& v, const std::string& field) {
  if (v.is_string()) return v.AsString();
  if (!v.is_list()) FailField(field, "must be a string or an array of content parts");
  std::string text;
  for (size_t k = 0; k < v.AsList().size(); ++k) {
    const std::string part_field = field + "[" + std::to_string(k) + "]";
    const Dict& part = ObjectAt(v.AsList()[k], part_field);
    const std::string& type = StringAt(part, "type", part_field + ".type");
    if (type == "input_text" || type == "output_text" || type == "text") {
      text += StringAt(part, "text", part_field + ".text");
    } else if (type == "refusal") {
      text += StringAt(part, "refusal", part_field + ".refusal");
    } else {
      FailField(part_field + ".type",
                "\"" + type + "\" content is not supported by this worker (text only)");
    }
  }
  return text;
}

// A reasoning item's text: its reasoning_text content, else its summary.
std::string ReasoningText(const Dict& item, const std::string& field) {
  std::string text;
  for (const char* key : {"content", "summary"}) {
    const Value* parts = PresentAt(item, key);
    if (parts == nullptr) continue;
    if (!parts->is_list()) FailField(field + "." + key, "must be an array");
    for (size_t k = 0; k < parts->AsList().size(); ++k) {
      const std::string part_field = field + "." + key + "[" + std::to_string(k) + "]";
      text += StringAt(ObjectAt(parts->AsList()[k], part_field), "text", part_field + ".text");
    }
    if (!text.empty()) break;
  }
  return text;
}

// The input items as chat messages. Consecutive function calls (and the
// assistant message before them) make one assistant turn with tool_calls; a
// reasoning item goes to the next assistant turn as reasoning_content (the
// chat layer hands it to templates as `thinking`); a function call's output
// is a "tool" message named after its call.
class InputMessages {
 public:
  void System(std::string text) {
    turns_.push_back({.role = "system", .content = std::move(text)});
  }

  void Add(const Value& v, const std::string& field) {
    const Dict& item = ObjectAt(v, field);
    const Value* type_value = PresentAt(item, "type");
    if (type_value != nullptr && !type_value->is_string())
      FailField(field + ".type", "must be a string");
    const std::string type = type_value == nullptr ? "message" : type_value->AsString();
    const bool extends_assistant = after_assistant_;
    after_assistant_ = false;
    if (type == "message") {
      std::string role = StringAt(item, "role", field + ".role");
      if (role == "developer") role = "system";
      if (role != "user" && role != "assistant" && role != "system") {
        FailField(field + ".role", "must be \"user\", \"assistant\", \"system\" or \"developer\"");
      }
      const Value* content = item.Find("content");
      if (content == nullptr) FailField(field + ".content", "is required");
      Turn turn{.role = role, .content = ContentText(*content, field + ".content")};
      if (role == "assistant") {
        turn.reasoning = std::exchange(reasoning_, "");
        after_assistant_ = true;
      }
      turns_.push_back(std::move(turn));
    } else if (type == "function_call") {
      const std::string& call_id = StringAt(item, "call_id", field + ".call_id");
      const std::string& name = StringAt(item, "name", field + ".name");
      call_names_[call_id] = name;
      if (!extends_assistant || turns_.empty()) {
        turns_.push_back({.role = "assistant", .content = std::nullopt});
      }
      Turn& turn = turns_.back();
      if (turn.reasoning.empty()) turn.reasoning = std::exchange(reasoning_, "");
      Dict function;
      function.Set("name", Value(name));
      function.Set("arguments", Value(StringAt(item, "arguments", field + ".arguments")));
      Dict call;
      call.Set("id", Value(call_id));
      call.Set("type", Value("function"));
      call.Set("function", Value::FromDict(std::move(function)));
      turn.tool_calls.push_back(Value::FromDict(std::move(call)));
      after_assistant_ = true;
    } else if (type == "function_call_output") {
      Turn turn{.role = "tool"};
      turn.tool_call_id = StringAt(item, "call_id", field + ".call_id");
      const Value* output = item.Find("output");
      if (output == nullptr) FailField(field + ".output", "is required");
      turn.content = ContentText(*output, field + ".output");
      if (auto it = call_names_.find(turn.tool_call_id); it != call_names_.end()) {
        turn.name = it->second;
      }
      turns_.push_back(std::move(turn));
    } else if (type == "reasoning") {
      reasoning_ += ReasoningText(item, field);
    } else if (type == "item_reference") {
      FailField(field + ".type", "item_reference needs stored responses; this worker keeps none");
    } else {
      FailField(field + ".type", "\"" + type + "\" items are not supported by this worker");
    }
  }

  Value Messages() const {
    jinja::ValueList out;
    for (const Turn& t : turns_) {
      Dict m;
      m.Set("role", Value(t.role));
      if (t.role == "tool") {
        m.Set("tool_call_id", Value(t.tool_call_id));
        if (!t.name.empty()) m.Set("name", Value(t.name));
      }
      m.Set("content", t.content ? Value(*t.content) : Value::None());
      if (!t.reasoning.empty()) m.Set("reasoning_content", Value(t.reasoning));
      if (!t.tool_calls.empty()) m.Set("tool_calls", Value::List(t.tool_calls));
      out.push_back(Value::FromDict(std::move(m)));
    }
    return Value::List(std::move(out));
  }

 private:
  struct Turn {
    std::string role;
    std::optional<std::string> content;
    std::string reasoning;
    jinja::ValueList tool_calls;
    std::string tool_call_id, name;  // role "tool"
  };
  std::vector<Turn> turns_;
  std::string reasoning_;  // waiting for the next assistant turn
  std::map<std::string, std::string> call_names_;
  bool after_assistant_ = false;  // the previous item was an assistant message or call
};

// Function tools in the chat form templates read: {type: "function",
// function: {name, description, parameters}} (no "strict": held to it
// or not, the template describes the same function).
Value Tools(const Dict& body, std::vector<std::string>& names) {
  const Value* tools = PresentAt(body, "tools");
  if (tools == nullptr) return Value::None();
  if (!tools->is_list()) FailField("tools", "must be an array");
  jinja::ValueList out;
  for (size_t k = 0; k < tools->AsList().size(); ++k) {
    const std::string field = "tools[" + std::to_string(k) + "]";
    const Dict& tool = ObjectAt(tools->AsList()[k], field);
    const std::string& type = StringAt(tool, "type", field + ".type");
    if (type != "function") {
      FailField(field + ".type", "hosted tools (\"" + type +
                                     "\") are not supported by this worker; only \"function\"");
    }
    const std::string& name = StringAt(tool, "name", field + ".name");
    if (name.empty()) FailField(field + ".name", "must not be empty");
    names.push_back(name);
    Dict function;
    function.Set("name", Value(name));
    if (const Value* d = PresentAt(tool, "description")) function.Set("description", *d);
    if (const Value* p = PresentAt(tool, "parameters")) {
      if (!p->is_dict()) FailField(field + ".parameters", "must be an object");
      function.Set("parameters", *p);
    }
    Dict wrapped;
    wrapped.Set("type", Value("function"));
    wrapped.Set("function", Value::FromDict(std::move(function)));
    out.push_back(Value::FromDict(std::move(wrapped)));
  }
  return out.empty() ? Value::None() : Value::List(std::move(out));
}

// tool_choice: "none" withdraws the tools; "required" and {type: "function",
// name} force a call (the name among the tools). Returns the forced name
// ("" for any tool), or nullopt when nothing is forced.
std::optional<std::string> ToolChoice(const Dict& body, const std::vector<std::string>& names,
                                      Value& tools) {
  const Value* choice = PresentAt(body, "tool_choice");
  if (choice == nullptr) return std::nullopt;
  if (choice->is_string()) {
    const std::string& c = choice->AsString();
    if (c == "none") {
      tools = Value::None();
      return std::nullopt;
    }
    if (c == "auto") return std::nullopt;
    if (c != "required")
      FailField("tool_choice", "must be \"none\", \"auto\", \"required\" or a function");
    if (tools.is_none()) FailField("tool_choice", "\"required\" needs tools");
    return "";
  }
  const Dict& named = ObjectAt(*choice, "tool_choice");
  if (StringAt(named, "type", "tool_choice.type") != "function") {
    FailField("tool_choice.type", "must be \"function\" (hosted tools are not supported)");
  }
  const std::string& name = StringAt(named, "name", "tool_choice.name");
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    FailField("tool_choice.name", "names no function in tools");
  }
  return name;
}

std::string Stringify(const Poco::Dynamic::Var& v) {
  std::ostringstream out;
  Poco::JSON::Stringifier::stringify(v, out);
  return out.str();
}

bool Present(const Poco::JSON::Object::Ptr& o, const char* k) {
  return o->has(k) && !o->get(k).isEmpty();
}

// Fields that need state this worker does not keep, or change results in
// ways it does not implement: refused naming them.
void RefuseUnsupported(const Poco::JSON::Object::Ptr& o) {
  if (Present(o, "store") && BoolField(o->get("store"), "store")) {
    FailField("store", "true is not supported: this worker keeps no state (send store: false)");
  }
  for (const char* key : {"previous_response_id", "conversation", "prompt"}) {
    if (Present(o, key)) {
      FailField(key, "is not supported: this worker keeps no state; send the whole input");
    }
  }
  if (Present(o, "background") && BoolField(o->get("background"), "background")) {
    FailField("background", "true is not supported by this worker");
  }
  if (Present(o, "truncation") && StringField(o->get("truncation"), "truncation") != "disabled") {
    FailField("truncation", "must be \"disabled\" (a prompt that is too long is refused)");
  }
  if (Present(o, "top_logprobs") &&
      IntegerField(o->get("top_logprobs"), "top_logprobs", 0, 20) > 0) {
    FailField("top_logprobs", "is not supported on /v1/responses yet (use /v1/chat/completions)");
  }
  if (Present(o, "include")) {
    const Poco::JSON::Array::Ptr include = o->getArray("include");
    if (!include) FailField("include", "must be an array of strings");
    for (unsigned k = 0; k < include->size(); ++k) {
      const std::string field = "include[" + std::to_string(k) + "]";
      // Encrypted reasoning is asked for to pass reasoning back in a later
      // request; here the reasoning item carries it in clear instead.
      const std::string name = StringField(include->get(k), field);
      if (name != "reasoning.encrypted_content") {
        FailField(field, "\"" + name + "\" is not supported");
      }
    }
  }
}

// text: {format: {type: text | json_object | json_schema (name, schema, strict)}}.
std::shared_ptr<const structured::Grammar> TextFormat(const Poco::JSON::Object::Ptr& o,
                                                      std::string& echo,
                                                      Poco::Dynamic::Var& schema) {
  if (!Present(o, "text")) return nullptr;
  const Poco::JSON::Object::Ptr text = o->getObject("text");
  if (!text) FailField("text", "must be an object");
  if (!Present(text, "format")) return nullptr;
  const Poco::JSON::Object::Ptr format = text->getObject("format");
  if (!format || !format->has("type") || !format->get("type").isString())
    FailField("text.format", "must be an object with a string type");
  echo = Stringify(text->get("format"));
  const std::string type = format->getValue<std::string>("type");
  if (type == "text") return nullptr;
  if (type == "json_object") return structured::JsonObjectGrammar();
  if (type != "json_schema")
    FailField("text.format.type", "must be text, json_object or json_schema");
  if (format->has("name") && !format->get("name").isString())
    FailField("text.format.name", "must be a string");
  if (Present(format, "strict")) BoolField(format->get("strict"), "text.format.strict");
  if (!format->has("schema")) FailField("text.format.schema", "is required");
  schema = format->get("schema");
  return SchemaGrammar(schema, "text.format.schema");
}

void ChatFields(const std::string& body, ResponsesRequest& r, std::optional<std::string>& forced) {
  const Value parsed = ParseBodyValue(body);
  const Dict& o = ObjectAt(parsed, "");
  InputMessages messages;
  if (const Value* instructions = PresentAt(o, "instructions")) {
    if (!instructions->is_string()) FailField("instructions", "must be a string");
    messages.System(instructions->AsString());
  }
  const Value* input = PresentAt(o, "input");
  if (input == nullptr) FailField("input", "is required");
  if (input->is_string()) {
    if (input->AsString().empty()) FailField("input", "must not be empty");
    Dict user;
    user.Set("role", Value("user"));
    user.Set("content", *input);
    messages.Add(Value::FromDict(std::move(user)), "input");
  } else if (input->is_list() && !input->AsList().empty()) {
    for (size_t k = 0; k < input->AsList().size(); ++k) {
      messages.Add(input->AsList()[k], "input[" + std::to_string(k) + "]");
    }
  } else {
    FailField("input", "must be a string or a non-empty array of items");
  }
  r.chat.messages = messages.Messages();
  std::vector<std::string> names;
  r.chat.tools = Tools(o, names);
  forced = ToolChoice(o, names, r.chat.tools);
  r.tools_enabled = !r.chat.tools.is_none();
  if (const Value* reasoning = PresentAt(o, "reasoning")) {
    const Dict& settings = ObjectAt(*reasoning, "reasoning");
    // summary ("auto", "concise", "detailed") is accepted: the reasoning
    // comes back whole as the reasoning item's content, never summarized.
    if (const Value* effort = PresentAt(settings, "effort")) {
      static constexpr std::array<std::string_view, 4> kEfforts = {"minimal", "low", "medium",
                                                                   "high"};
      if (!effort->is_string() ||
          std::find(kEfforts.begin(), kEfforts.end(), effort->AsString()) == kEfforts.end()) {
        FailField("reasoning.effort", "must be \"minimal\", \"low\", \"medium\" or \"high\"");
      }
      r.chat.kwargs.Set("reasoning_effort", *effort);
      r.reasoning_effort_json = JsonQuote(effort->AsString());
    }
  }
}

// The offered functions, or only the one named `only`, each parameters
// schema compiled once to refuse what constrained decoding cannot honour.
std::vector<structured::ToolSchema> ToolSchemas(const Poco::JSON::Object::Ptr& o,
                                                const std::string& only) {
  std::vector<structured::ToolSchema> out;
  const Poco::JSON::Array::Ptr tools = o->getArray("tools");
  for (unsigned i = 0; tools && i < tools->size(); ++i) {
    const Poco::JSON::Object::Ptr tool = tools->getObject(i);
    structured::ToolSchema t;
    t.name = tool->getValue<std::string>("name");
    if (!only.empty() && t.name != only) continue;
    if (Present(tool, "parameters")) {
      t.parameters = tool->get("parameters");
      SchemaGrammar(t.parameters, "tools[" + std::to_string(i) + "].parameters");
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

std::variant<ResponsesRequest, ValidationError> ParseResponsesRequest(const std::string& body,
                                                                      const RequestLimits& limits) {
  return Validated<ResponsesRequest>([&] {
    const Poco::JSON::Object::Ptr o = ParseJsonObject(body);
    ResponsesRequest r;
    RefuseUnsupported(o);
    if (Present(o, "model")) r.model = StringField(o->get("model"), "model");
    if (Present(o, "stream")) r.stream = BoolField(o->get("stream"), "stream");
    r.max_output_tokens = limits.max_tokens;  // "until done", bounded here
    if (Present(o, "max_output_tokens")) {
      r.max_output_tokens =
          IntegerField(o->get("max_output_tokens"), "max_output_tokens", 1, limits.max_tokens);
    }
    r.sampling.temperature =
        Present(o, "temperature") ? NumberField(o->get("temperature"), "temperature", 0, 2) : 1.0;
    if (Present(o, "top_p")) r.sampling.top_p = NumberField(o->get("top_p"), "top_p", 0, 1);
    r.sampling.seed = DrawSeed();
    if (Present(o, "parallel_tool_calls")) {
      r.parallel_tool_calls = BoolField(o->get("parallel_tool_calls"), "parallel_tool_calls");
    }
    if (Present(o, "metadata")) {
      if (!o->getObject("metadata")) FailField("metadata", "must be an object");
      r.metadata_json = Stringify(o->get("metadata"));
    }
    r.grammar = TextFormat(o, r.text_format_json, r.json_schema);
    std::optional<std::string> forced;
    ChatFields(body, r, forced);
    if (Present(o, "instructions")) r.instructions_json = Stringify(o->get("instructions"));
    if (Present(o, "tools")) r.tools_json = Stringify(o->get("tools"));
    if (Present(o, "tool_choice")) r.tool_choice_json = Stringify(o->get("tool_choice"));
    if (r.tools_enabled && forced) r.forced_tools = ToolSchemas(o, *forced);
    if (r.tools_enabled && !forced && r.grammar) r.callable_tools = ToolSchemas(o, "");
    return r;
  });
}

}  // namespace orcd
