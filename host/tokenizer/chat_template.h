// Chat templates of the supported families, rendered in C++ (no Jinja):
//
//   chatml  (Qwen2)   <|im_start|>{role}\n{content}<|im_end|>\n ...
//                     generation prompt "<|im_start|>assistant\n". Qwen2 adds
//                     a default system message when the first is not one.
//   phi3              <|{role}|>\n{content}<|end|>\n ...   (developer -> system)
//                     generation prompt "<|assistant|>\n".
//   harmony (gpt-oss) <|start|>{role}<|message|>{content}<|end|> ...
//                     assistant history:
//                     <|start|>assistant<|channel|>final<|message|>{content}<|end|> generation
//                     prompt "<|start|>assistant".
//
// The rendered text never contains BOS: the tokenizer's add-BOS rule adds it
// (encode with add_special and parse_special). The template is chosen from
// tokenizer.chat_template when its text is recognised, else from
// general.architecture through the family table (family_traits.cc).
#ifndef ORCD_HOST_TOKENIZER_CHAT_TEMPLATE_H_
#define ORCD_HOST_TOKENIZER_CHAT_TEMPLATE_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace orcd {

class GgufFile;

enum class ChatFormat { kChatMl, kPhi3, kHarmony };

// "chatml", "phi3", "harmony".
std::string_view ChatFormatName(ChatFormat format);
// The inverse; nullopt for another name.
std::optional<ChatFormat> ParseChatFormat(std::string_view name);

struct FamilyTraits;  // family_traits.h

struct ChatTemplate {
  ChatFormat format = ChatFormat::kChatMl;
  // System message used when the conversation does not start with one ("" = none).
  std::string default_system;
};

struct ChatTurn {
  std::string role;  // system | developer | user | assistant | tool (chatml only)
  std::string content;
};

// From the template text (when recognised), else the family's default (its
// plugin's, FindFamilyTraits; null: none). Throws orcd::Error(kUnsupported)
// naming the architecture when neither gives one.
ChatTemplate SelectChatTemplate(std::optional<std::string_view> template_text,
                                std::string_view architecture, const FamilyTraits* family);
// Reads tokenizer.chat_template and general.architecture.
ChatTemplate SelectChatTemplate(const GgufFile& gguf, const FamilyTraits* family);

// Throws orcd::Error(kInvalidArgument) for a role the format has no place for.
std::string RenderChat(const ChatTemplate& chat_template, std::span<const ChatTurn> turns,
                       bool add_generation_prompt);

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_CHAT_TEMPLATE_H_
