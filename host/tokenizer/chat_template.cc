#include "host/tokenizer/chat_template.h"

#include <array>

#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/tokenizer/family_traits.h"

namespace orcd {
namespace {

// Default system messages a ChatML template may carry, most specific first.
constexpr std::array<std::string_view, 2> kKnownDefaultSystems = {
    "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
    "You are a helpful assistant.",
};

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The format a template text is written for, judged by its control tokens.
std::optional<ChatTemplate> RecogniseTemplate(std::string_view text) {
  if (Contains(text, "<|im_start|>")) {
    ChatTemplate t{ChatFormat::kChatMl, ""};
    for (const std::string_view system : kKnownDefaultSystems) {
      if (Contains(text, system)) {
        t.default_system = system;
        break;
      }
    }
    return t;
  }
  if (Contains(text, "<|start|>") && Contains(text, "<|message|>")) {
    return ChatTemplate{ChatFormat::kHarmony, ""};
  }
  if (Contains(text, "<|user|>") && Contains(text, "<|end|>")) {
    return ChatTemplate{ChatFormat::kPhi3, ""};
  }
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
      UnsupportedRole(ChatFormat::kPhi3, turn.role);
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

}  // namespace

std::string_view ChatFormatName(ChatFormat format) {
  switch (format) {
    case ChatFormat::kChatMl:
      return "chatml";
    case ChatFormat::kPhi3:
      return "phi3";
    case ChatFormat::kHarmony:
      return "harmony";
  }
  return "unknown";
}

std::optional<ChatFormat> ParseChatFormat(std::string_view name) {
  for (ChatFormat f : {ChatFormat::kChatMl, ChatFormat::kPhi3, ChatFormat::kHarmony}) {
    if (ChatFormatName(f) == name) return f;
  }
  return std::nullopt;
}

ChatTemplate SelectChatTemplate(std::optional<std::string_view> template_text,
                                std::string_view architecture, const FamilyTraits* family) {
  if (template_text) {
    if (std::optional<ChatTemplate> recognised = RecogniseTemplate(*template_text)) {
      return *recognised;
    }
  }
  if (family != nullptr) return ChatTemplate{family->chat_format, family->default_system};
  throw Error(
      ErrorCode::kUnsupported,
      "no chat template for architecture '" + std::string(architecture) + "': " +
          (template_text ? "tokenizer.chat_template is not a chatml, phi3 or harmony template"
                         : "the model has no tokenizer.chat_template") +
          " and the architecture has no default");
}

ChatTemplate SelectChatTemplate(const GgufFile& gguf, const FamilyTraits* family) {
  return SelectChatTemplate(gguf.GetString("tokenizer.chat_template"), gguf.architecture(), family);
}

std::string RenderChat(const ChatTemplate& chat_template, std::span<const ChatTurn> turns,
                       bool add_generation_prompt) {
  std::string out;
  switch (chat_template.format) {
    case ChatFormat::kChatMl:
      RenderChatMl(chat_template, turns, out);
      if (add_generation_prompt) out.append("<|im_start|>assistant\n");
      break;
    case ChatFormat::kPhi3:
      RenderPhi3(turns, out);
      if (add_generation_prompt) out.append("<|assistant|>\n");
      break;
    case ChatFormat::kHarmony:
      RenderHarmony(turns, out);
      if (add_generation_prompt) out.append("<|start|>assistant");
      break;
  }
  return out;
}

}  // namespace orcd
