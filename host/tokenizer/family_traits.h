// What a model family's conversations and vocabulary need beyond the GGUF:
// the chat format to use when the file carries no template the host
// recognises, and vocabulary quirks GGUF does not record. The host names no
// family: the architecture plugin that serves a model supplies these through
// the SDK (orcd_chat_defaults, ABI 1.2).
#ifndef ORCD_HOST_TOKENIZER_FAMILY_TRAITS_H_
#define ORCD_HOST_TOKENIZER_FAMILY_TRAITS_H_

#include <optional>
#include <string>
#include <string_view>

#include "host/tokenizer/chat_template.h"

namespace orcd {

class PluginRegistry;

struct FamilyTraits {
  ChatFormat chat_format = ChatFormat::kChatMl;
  std::string default_system;  // "" = none
  // HF marks the chat special tokens rstrip (whitespace after them in the
  // prompt is dropped); GGUF has no field for it (Phi-3).
  bool rstrip_chat_tokens = false;
};

// The traits the plugin serving `architecture` declares; nullopt when no
// plugin serves it or the plugin declares none. Throws orcd::Error
// (kPluginRefused) for a chat format the host does not know.
std::optional<FamilyTraits> FindFamilyTraits(const PluginRegistry& registry,
                                             std::string_view architecture);

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_FAMILY_TRAITS_H_
