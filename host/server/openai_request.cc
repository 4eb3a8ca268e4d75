#include "host/server/openai_request.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <string>
#include <utility>
#include <vector>

#include "host/sampling/token_logprobs.h"
#include "host/server/openai_chat_request.h"
#include "host/server/request_validation.h"
#include "host/structured/json_schema_grammar.h"

namespace orcd {
namespace {

using Poco::Dynamic::Var;

bool Present(const Poco::JSON::Object::Ptr& o, const char* k) {
  return o->has(k) && !o->get(k).isEmpty();
}

double Num(const Poco::JSON::Object::Ptr& o, const char* k, double lo, double hi, double dflt) {
  return Present(o, k) ? NumberField(o->get(k), k, lo, hi) : dflt;
}

[[noreturn]] void Unsupported(const std::string& field, const std::string& what) {
  FailField(field, what + " is not supported by this worker yet");
}

// Fields whose use would change the output in a way not implemented here:
// refused when set to anything but their no-op value.
void RefuseUnsupported(const Poco::JSON::Object::Ptr& o, bool chat) {
  if (!chat) {
    if (Present(o, "echo") && BoolField(o->get("echo"), "echo")) Unsupported("echo", "echo");
    if (Present(o, "best_of") && IntegerField(o->get("best_of"), "best_of", 1, 1 << 20) > 1)
      Unsupported("best_of", "best_of > 1");
    if (Present(o, "suffix") && !StringField(o->get("suffix"), "suffix").empty())
      Unsupported("suffix", "suffix (insertion)");
  }
}

// response_format: text (free), json_object (any JSON object) or
// json_schema ({name, schema, strict}: the schema's instances; strict or not,
// the output is held to the schema).
std::shared_ptr<const structured::Grammar> ParseResponseFormat(const Poco::JSON::Object::Ptr& o,
                                                               Poco::Dynamic::Var& schema) {
  if (!Present(o, "response_format")) return nullptr;
  const Poco::JSON::Object::Ptr format = o->getObject("response_format");
  if (!format || !format->has("type") || !format->get("type").isString())
    FailField("response_format", "must be an object with a string type");
  const std::string type = format->getValue<std::string>("type");
  if (type == "text") return nullptr;
  if (type == "json_object") return structured::JsonObjectGrammar();
  if (type != "json_schema")
    FailField("response_format.type", "must be text, json_object or json_schema");
  const Poco::JSON::Object::Ptr spec = format->getObject("json_schema");
  if (!spec) FailField("response_format.json_schema", "must be an object with a schema");
  if (spec->has("name") && !spec->get("name").isString())
    FailField("response_format.json_schema.name", "must be a string");
  if (spec->has("strict") && !spec->get("strict").isEmpty())
    BoolField(spec->get("strict"), "response_format.json_schema.strict");
  if (!spec->has("schema")) FailField("response_format.json_schema.schema", "is required");
  schema = spec->get("schema");
  return SchemaGrammar(schema, "response_format.json_schema.schema");
}

// The offered functions (ParseChatFields checked their shapes), or only the
// one named `only`, each parameters schema compiled once to refuse what
// constrained decoding cannot honour.
std::vector<structured::ToolSchema> ToolSchemas(const Poco::JSON::Object::Ptr& o,
                                                const std::string& only) {
  std::vector<structured::ToolSchema> out;
  const Poco::JSON::Array::Ptr tools = o->getArray("tools");
  for (unsigned i = 0; tools && i < tools->size(); ++i) {
    const Poco::JSON::Object::Ptr function = tools->getObject(i)->getObject("function");
    structured::ToolSchema tool;
    tool.name = function->getValue<std::string>("name");
    if (!only.empty() && tool.name != only) continue;
    if (function->has("parameters") && !function->get("parameters").isEmpty()) {
      tool.parameters = function->get("parameters");
      SchemaGrammar(tool.parameters, "tools[" + std::to_string(i) + "].function.parameters");
    }
    out.push_back(std::move(tool));
  }
  return out;
}

// tool_choice "required" or {"type": "function", "function": {"name"}}: the
// functions one of which the reply must call.
std::vector<structured::ToolSchema> ForcedTools(const Poco::JSON::Object::Ptr& o) {
  if (!Present(o, "tool_choice") || !Present(o, "tools")) return {};
  const Var choice = o->get("tool_choice");
  if (choice.isString()) {
    if (choice.convert<std::string>() != "required") return {};
    return ToolSchemas(o, "");
  }
  return ToolSchemas(
      o, o->getObject("tool_choice")->getObject("function")->getValue<std::string>("name"));
}

// Chat: logprobs (bool) + top_logprobs (0-20, only with logprobs);
// completions: logprobs (0-5 alternatives). -1: none asked.
int ParseLogprobs(const Poco::JSON::Object::Ptr& o, bool chat) {
  if (!chat) {
    return Present(o, "logprobs")
               ? static_cast<int>(IntegerField(o->get("logprobs"), "logprobs", 0, 5))
               : -1;
  }
  const bool wanted = Present(o, "logprobs") && BoolField(o->get("logprobs"), "logprobs");
  if (!Present(o, "top_logprobs")) return wanted ? 0 : -1;
  const auto top =
      static_cast<int>(IntegerField(o->get("top_logprobs"), "top_logprobs", 0, kMaxTopLogprobs));
  if (!wanted) FailField("top_logprobs", "requires logprobs: true");
  return top;
}

// logit_bias: {"<token id>": bias in [-100, 100]} over the model's vocabulary.
std::vector<std::pair<int32_t, float>> ParseLogitBias(const Poco::JSON::Object::Ptr& o,
                                                      int64_t vocab_size) {
  std::vector<std::pair<int32_t, float>> out;
  if (!Present(o, "logit_bias")) return out;
  const Poco::JSON::Object::Ptr bias = o->getObject("logit_bias");
  if (!bias) FailField("logit_bias", "must be an object of token ids to biases");
  if (bias->size() > 1024) FailField("logit_bias", "must hold at most 1024 token ids");
  for (const auto& [key, value] : *bias) {
    const std::string field = "logit_bias." + key.substr(0, 20);
    size_t used = 0;
    long long id = -1;
    try {
      id = std::stoll(key, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != key.size() || key.empty() || id < 0 || (vocab_size > 0 && id >= vocab_size)) {
      FailField(field, "keys must be token ids of this model (0 to " +
                           std::to_string(vocab_size - 1) + ")");
    }
    out.emplace_back(static_cast<int32_t>(id),
                     static_cast<float>(NumberField(value, field, -100, 100)));
  }
  return out;
}

}  // namespace

std::variant<OpenAiRequest, ValidationError> ParseOpenAiRequest(const std::string& body, bool chat,
                                                                const RequestLimits& limits) {
  return Validated<OpenAiRequest>([&] {
    const Poco::JSON::Object::Ptr o = ParseJsonObject(body);
    OpenAiRequest r;
    r.chat = chat;
    if (Present(o, "model")) r.model = StringField(o->get("model"), "model");
    if (Present(o, "stream")) r.stream = BoolField(o->get("stream"), "stream");
    if (Present(o, "cache_salt")) {
      r.cache_salt = StringField(o->get("cache_salt"), "cache_salt");
      if (r.cache_salt.size() > 256) FailField("cache_salt", "must be at most 256 characters");
    }
    RefuseUnsupported(o, chat);
    r.grammar = ParseResponseFormat(o, r.json_schema);
    if (Present(o, "stream_options")) {
      const Poco::JSON::Object::Ptr options = o->getObject("stream_options");
      if (!options) FailField("stream_options", "must be an object");
      if (!r.stream) FailField("stream_options", "is only allowed when stream is true");
      if (options->has("include_usage") && !options->get("include_usage").isEmpty()) {
        r.include_usage = BoolField(options->get("include_usage"), "stream_options.include_usage");
      }
    }
    if (chat) {
      ParsedChatFields fields = ParseChatFields(body);
      r.chat_request = std::move(fields.request);
      r.tools_enabled = fields.tools_enabled;
      if (r.tools_enabled) r.forced_tools = ForcedTools(o);
      if (r.tools_enabled && r.grammar && r.forced_tools.empty() && Present(o, "tools"))
        r.callable_tools = ToolSchemas(o, "");
    } else {
      if (!Present(o, "prompt") || !o->get("prompt").isString())
        FailField("prompt", "must be a string");
      r.prompt = o->getValue<std::string>("prompt");
      if (r.prompt.empty()) FailField("prompt", "must not be empty");
    }
    // OpenAI's defaults: 16 for completions, "until done" for chat (bounded here).
    r.max_tokens = chat ? limits.max_tokens : std::min<int64_t>(16, limits.max_tokens);
    for (const char* key : {"max_tokens", "max_completion_tokens"}) {
      if (Present(o, key)) r.max_tokens = IntegerField(o->get(key), key, 1, limits.max_tokens);
    }
    r.sampling.temperature = Num(o, "temperature", 0, 2, 1.0);
    r.sampling.top_p = Num(o, "top_p", 0, 1, 1.0);
    r.sampling.presence_penalty = Num(o, "presence_penalty", -2, 2, 0.0);
    r.sampling.frequency_penalty = Num(o, "frequency_penalty", -2, 2, 0.0);
    r.sampling.logit_bias = ParseLogitBias(o, limits.vocab_size);
    r.top_logprobs = ParseLogprobs(o, chat);
    if (Present(o, "n")) r.n = static_cast<int>(IntegerField(o->get("n"), "n", 1, kMaxChoices));
    if (Present(o, "seed")) {
      r.sampling.seed = SeedField(o->get("seed"), "seed");
      r.sampling.seed_from_request = true;
    } else {
      r.sampling.seed = DrawSeed();
    }
    if (Present(o, "stop")) {
      const Var& v = o->get("stop");
      if (v.isString()) {
        r.stop.push_back(v.convert<std::string>());
      } else if (auto arr = o->getArray("stop")) {
        if (static_cast<int64_t>(arr->size()) > limits.max_stop_strings) {
          FailField("stop",
                    "must hold at most " + std::to_string(limits.max_stop_strings) + " strings");
        }
        for (size_t k = 0; k < arr->size(); ++k) {
          r.stop.push_back(
              StringField(arr->get(static_cast<unsigned>(k)), "stop[" + std::to_string(k) + "]"));
        }
      } else {
        FailField("stop", "must be a string or an array of strings");
      }
    }
    return r;
  });
}

}  // namespace orcd
