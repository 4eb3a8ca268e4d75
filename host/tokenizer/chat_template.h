// How a conversation becomes the prompt text. In order of preference:
//   1. chat.template_file (worker.yaml): a Jinja template that replaces the model's;
//   2. the model's own tokenizer.chat_template (Jinja), rendered as transformers
//      renders it (host/chat/jinja);
//   3. the family default the architecture plugin declares (orcd_chat_defaults),
//      rendered in C++ by one of these formats:
//
//   chatml  (Qwen2)   <|im_start|>{role}\n{content}<|im_end|>\n ...
//                     generation prompt "<|im_start|>assistant\n". Qwen2 adds
//                     a default system message when the first is not one.
//   role-tags (Phi-3)  <|{role}|>\n{content}<|end|>\n ...   (developer -> system)
//                     generation prompt "<|assistant|>\n".
//   turns (Gemma)     <start_of_turn>{role}\n{content}<end_of_turn>\n ...
//                     (assistant -> model; a system message opens the first
//                     user turn, followed by a blank line; content trimmed)
//                     generation prompt "<start_of_turn>model\n".
//   harmony (gpt-oss) <|start|>{role}<|message|>{content}<|end|> ...
//                     assistant history:
//                     <|start|>assistant<|channel|>final<|message|>{content}<|end|> generation
//                     prompt "<|start|>assistant".
//
// The C++ formats never write BOS: the tokenizer's add-BOS rule adds it
// (encode with add_special and parse_special). A Jinja template writes the
// BOS it wants: its output is encoded with parse_special and without
// add_special, as transformers encodes it (ChatTemplate::add_special_tokens).
#ifndef ORCD_HOST_TOKENIZER_CHAT_TEMPLATE_H_
#define ORCD_HOST_TOKENIZER_CHAT_TEMPLATE_H_

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "host/chat/chat_variables.h"
#include "host/chat/output/chat_output_format.h"
#include "host/chat/template_messages.h"

namespace orcd {

namespace jinja {
class JinjaTemplate;
}
class GgufFile;

enum class ChatFormat { kChatMl, kRoleTags, kHarmony, kTurns };

// "chatml", "role-tags" (<|role|>\n...<|end|>), "harmony", "turns" (Gemma).
std::string_view ChatFormatName(ChatFormat format);
// The inverse; nullopt for another name.
std::optional<ChatFormat> ParseChatFormat(std::string_view name);

struct FamilyTraits;  // family_traits.h

struct ChatTemplate {
  // The C++ format used when there is no Jinja template; with one, the
  // format its text is recognised as (else the family's), for callers that
  // need to know the conversation's shape.
  ChatFormat format = ChatFormat::kChatMl;
  // System message used when the conversation does not start with one ("" = none).
  std::string default_system;
  // The Jinja template that renders the conversation; null: the C++ format.
  std::shared_ptr<const jinja::JinjaTemplate> jinja;
  // Where it came from, for logs: "chat.template_file", "tokenizer.chat_template"
  // or "plugin default".
  std::string origin = "plugin default";
  // bos_token / eos_token as the Jinja template sees them (nullopt: undefined).
  std::optional<std::string> bos_token;
  std::optional<std::string> eos_token;
  // How the model writes tool calls and reasoning: recognised from the Jinja
  // template's text; harmony for the C++ harmony format; else plain.
  ChatOutputFormat output_format = ChatOutputFormat::kPlain;
  // How the Jinja template wants assistant tool calls (found by a probe).
  TemplateMessageOptions message_options;

  // Whether the prompt is encoded with the vocabulary's BOS/EOS rule: only
  // for the C++ formats, which write no BOS.
  bool add_special_tokens() const { return jinja == nullptr; }
};

struct ChatTurn {
  std::string role;  // system | developer | user | assistant | tool (chatml only)
  std::string content;
};

// The model's template text when it parses as Jinja, else the family's default
// (its plugin's, FindFamilyTraits; null: none). A template this engine cannot
// parse falls back to the family default with a warning in the log. Throws
// orcd::Error(kUnsupported) naming the architecture when neither gives one.
ChatTemplate SelectChatTemplate(std::optional<std::string_view> template_text,
                                std::string_view architecture, const FamilyTraits* family);

struct ChatTemplateOptions {
  // chat.template_file: replaces the model's template when set.
  std::filesystem::path template_file;
};
// Reads tokenizer.chat_template, the bos/eos token texts and
// general.architecture. A template_file that cannot be read or parsed throws
// orcd::Error(kInvalidArgument) naming it.
ChatTemplate SelectChatTemplate(const GgufFile& gguf, const FamilyTraits* family,
                                const ChatTemplateOptions& options = {});

// The text of the token whose id the metadata key holds
// ("tokenizer.ggml.bos_token_id"); nullopt when absent.
std::optional<std::string> GgufTokenText(const GgufFile& gguf, std::string_view id_key);

// Throws orcd::Error(kInvalidArgument) for a role the format has no place for,
// and jinja::TemplateError (an orcd::Error) when the Jinja template fails.
std::string RenderChat(const ChatTemplate& chat_template, std::span<const ChatTurn> turns,
                       bool add_generation_prompt);
// The same with the full render input (messages as template values, tools,
// extra variables). Without a Jinja template only role/content are used.
std::string RenderChat(const ChatTemplate& chat_template, const ChatRenderInput& input);

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_CHAT_TEMPLATE_H_
