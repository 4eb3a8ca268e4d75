#include "host/tokenizer/chat_template.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "host/chat/jinja/jinja_template.h"
#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/tokenizer/family_traits.h"

namespace orcd {
namespace {

// The generic default system message a ChatML template may carry.
constexpr std::string_view kKnownDefaultSystem = "You are a helpful assistant.";

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The format a template text is written for, judged by its control tokens.
std::optional<ChatTemplate> RecogniseTemplate(std::string_view text) {
  if (Contains(text, "<|im_start|>")) {
    ChatTemplate t{ChatFormat::kChatMl, ""};
    if (Contains(text, kKnownDefaultSystem)) t.default_system = kKnownDefaultSystem;
    return t;
  }
  if (Contains(text, "<|start|>") && Contains(text, "<|message|>")) {
    return ChatTemplate{ChatFormat::kHarmony, ""};
  }
  if (Contains(text, "<|user|>") && Contains(text, "<|end|>")) {
    return ChatTemplate{ChatFormat::kRoleTags, ""};
  }
  if (Contains(text, "<start_of_turn>")) return ChatTemplate{ChatFormat::kTurns, ""};
  return std::nullopt;
}

[[noreturn]] void UnsupportedRole(ChatFormat format, std::string_view role) {
  throw Error(ErrorCode::kInvalidArgument, "chat role '" + std::string(role) +
                                               "' is not supported by the " +
                                               std::string(ChatFormatName(format)) + " template");
}

void RenderChatMl(const ChatTemplate& t, std::span<const ChatTurn> turns, std::string& out) {
  if (!t.default_system.empty() && (turns.empty() || turns.front().role != "system")) {
    out.append("<|im_start|>system\n").append(t.default_system).append("<|im_end|>\n");
  }
  for (const ChatTurn& turn : turns) {
    std::string_view role = turn.role;
    if (role == "developer") role = "system";
    if (role != "system" && role != "user" && role != "assistant" && role != "tool") {
      UnsupportedRole(t.format, turn.role);
    }
    out.append("<|im_start|>")
        .append(role)
        .append("\n")
        .append(turn.content)
        .append("<|im_end|>\n");
  }
}

void RenderPhi3(std::span<const ChatTurn> turns, std::string& out) {
  for (const ChatTurn& turn : turns) {
    std::string_view role = turn.role;
    if (role == "developer") role = "system";
    if (role != "system" && role != "user" && role != "assistant") {
      UnsupportedRole(ChatFormat::kRoleTags, turn.role);
    }
    out.append("<|").append(role).append("|>\n").append(turn.content).append("<|end|>\n");
  }
}

void RenderHarmony(std::span<const ChatTurn> turns, std::string& out) {
  for (const ChatTurn& turn : turns) {
    if (turn.role == "assistant") {
      out.append("<|start|>assistant<|channel|>final<|message|>");
    } else if (turn.role == "system" || turn.role == "developer" || turn.role == "user") {
      out.append("<|start|>").append(turn.role).append("<|message|>");
    } else {
      UnsupportedRole(ChatFormat::kHarmony, turn.role);
    }
    out.append(turn.content).append("<|end|>");
  }
}

std::string_view Trim(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\n\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\n\r") - first + 1);
}

// Gemma's template: no system role; its text opens the first user turn.
void RenderTurns(std::span<const ChatTurn> turns, std::string& out) {
  std::string system;
  for (size_t i = 0; i < turns.size(); ++i) {
    std::string_view role = turns[i].role;
    if (i == 0 && (role == "system" || role == "developer")) {
      system = std::string(Trim(turns[i].content)) + "\n\n";
      continue;
    }
    if (role == "assistant") role = "model";
    if (role != "user" && role != "model") UnsupportedRole(ChatFormat::kTurns, turns[i].role);
    out.append("<start_of_turn>").append(role).append("\n");
    if (!system.empty()) out.append(std::exchange(system, ""));
    out.append(Trim(turns[i].content)).append("<end_of_turn>\n");
  }
}

}  // namespace

std::string_view ChatFormatName(ChatFormat format) {
  switch (format) {
    case ChatFormat::kChatMl:
      return "chatml";
    case ChatFormat::kRoleTags:
      return "role-tags";
    case ChatFormat::kHarmony:
      return "harmony";
    case ChatFormat::kTurns:
      return "turns";
  }
  return "unknown";
}

std::optional<ChatFormat> ParseChatFormat(std::string_view name) {
  for (ChatFormat f :
       {ChatFormat::kChatMl, ChatFormat::kRoleTags, ChatFormat::kHarmony, ChatFormat::kTurns}) {
    if (ChatFormatName(f) == name) return f;
  }
  return std::nullopt;
}

namespace {

// A Jinja template for text, with the format its text looks like (else the
// family's) so that callers still know the conversation's shape.
ChatTemplate JinjaChatTemplate(std::string_view text, const FamilyTraits* family,
                               std::string origin) {
  ChatTemplate t = RecogniseTemplate(text).value_or(
      family != nullptr ? ChatTemplate{family->chat_format, family->default_system}
                        : ChatTemplate{});
  t.jinja = std::make_shared<const jinja::JinjaTemplate>(jinja::JinjaTemplate::Parse(text));
  t.origin = std::move(origin);
  t.output_format = DetectChatOutputFormat(text);
  return t;
}

std::string ReadTemplateFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    throw Error(ErrorCode::kInvalidArgument, "chat.template_file: cannot read " + path.string());
  }
  return text.str();
}

}  // namespace

ChatTemplate SelectChatTemplate(std::optional<std::string_view> template_text,
                                std::string_view architecture, const FamilyTraits* family) {
  if (template_text) {
    try {
      return JinjaChatTemplate(*template_text, family, "tokenizer.chat_template");
    } catch (const jinja::TemplateError& e) {
      // Serve with the family default rather than not at all, but say so.
      LogWarn("chat_template",
              "the model's tokenizer.chat_template cannot be used; falling back to the "
              "architecture's default format",
              {{"reason", e.what()}});
    }
  }
  if (family != nullptr) {
    ChatTemplate t{family->chat_format, family->default_system};
    if (t.format == ChatFormat::kHarmony) t.output_format = ChatOutputFormat::kHarmony;
    return t;
  }
  throw Error(ErrorCode::kUnsupported,
              "no chat template for architecture '" + std::string(architecture) + "': " +
                  (template_text ? "its tokenizer.chat_template cannot be used"
                                 : "the model has no tokenizer.chat_template") +
                  " and the architecture has no default");
}

ChatTemplate SelectChatTemplate(const GgufFile& gguf, const FamilyTraits* family,
                                const ChatTemplateOptions& options) {
  ChatTemplate t;
  if (!options.template_file.empty()) {
    try {
      t = JinjaChatTemplate(ReadTemplateFile(options.template_file), family, "chat.template_file");
    } catch (const jinja::TemplateError& e) {
      throw Error(ErrorCode::kInvalidArgument,
                  "chat.template_file " + options.template_file.string() + ": " + e.what());
    }
  } else {
    t = SelectChatTemplate(gguf.GetString("tokenizer.chat_template"), gguf.architecture(), family);
  }
  t.bos_token = GgufTokenText(gguf, "tokenizer.ggml.bos_token_id");
  t.eos_token = GgufTokenText(gguf, "tokenizer.ggml.eos_token_id");
  if (t.jinja) {
    ChatRenderInput tokens;
    tokens.bos_token = t.bos_token;
    tokens.eos_token = t.eos_token;
    t.message_options = ProbeTemplateMessageOptions(*t.jinja, tokens);
  }
  return t;
}

std::optional<std::string> GgufTokenText(const GgufFile& gguf, std::string_view id_key) {
  const std::optional<uint64_t> id = gguf.GetU64(id_key);
  const auto tokens = gguf.GetStringArray("tokenizer.ggml.tokens");
  if (!id || !tokens || *id >= tokens->size()) return std::nullopt;
  return std::string((*tokens)[*id]);
}

std::string RenderChat(const ChatTemplate& chat_template, std::span<const ChatTurn> turns,
                       bool add_generation_prompt) {
  if (chat_template.jinja) {
    ChatRenderInput input;
    jinja::ValueList messages;
    for (const ChatTurn& turn : turns) {
      jinja::Dict m;
      m.Set("role", jinja::Value(turn.role));
      m.Set("content", jinja::Value(turn.content));
      messages.push_back(jinja::Value::FromDict(std::move(m)));
    }
    input.messages = jinja::Value::List(std::move(messages));
    input.add_generation_prompt = add_generation_prompt;
    return RenderChat(chat_template, input);
  }
  std::string out;
  switch (chat_template.format) {
    case ChatFormat::kChatMl:
      RenderChatMl(chat_template, turns, out);
      if (add_generation_prompt) out.append("<|im_start|>assistant\n");
      break;
    case ChatFormat::kRoleTags:
      RenderPhi3(turns, out);
      if (add_generation_prompt) out.append("<|assistant|>\n");
      break;
    case ChatFormat::kHarmony:
      RenderHarmony(turns, out);
      if (add_generation_prompt) out.append("<|start|>assistant");
      break;
    case ChatFormat::kTurns:
      RenderTurns(turns, out);
      if (add_generation_prompt) out.append("<start_of_turn>model\n");
      break;
  }
  return out;
}

std::string RenderChat(const ChatTemplate& chat_template, const ChatRenderInput& input) {
  if (!chat_template.jinja) {
    std::vector<ChatTurn> turns;
    for (const jinja::Value& m : input.messages.AsList()) {
      const jinja::Value* role = m.is_dict() ? m.AsDict().Find("role") : nullptr;
      const jinja::Value* content = m.is_dict() ? m.AsDict().Find("content") : nullptr;
      if (role == nullptr || !role->is_string()) {
        throw Error(ErrorCode::kInvalidArgument, "every message needs a string role");
      }
      turns.push_back({role->AsString(),
                       content != nullptr && content->is_string() ? content->AsString() : ""});
    }
    return RenderChat(chat_template, turns, input.add_generation_prompt);
  }
  ChatRenderInput with_tokens = input;
  if (!with_tokens.bos_token) with_tokens.bos_token = chat_template.bos_token;
  if (!with_tokens.eos_token) with_tokens.eos_token = chat_template.eos_token;
  return chat_template.jinja->Render(ChatVariables(with_tokens));
}

}  // namespace orcd
