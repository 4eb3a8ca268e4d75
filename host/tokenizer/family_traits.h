// The one place orcd's tokenizer layer names model families: per
// general.architecture, the chat template to use when the GGUF carries none
// and vocabulary quirks the GGUF does not record.
#ifndef ORCD_HOST_TOKENIZER_FAMILY_TRAITS_H_
#define ORCD_HOST_TOKENIZER_FAMILY_TRAITS_H_

#include <string_view>

#include "host/tokenizer/chat_template.h"

namespace orcd {

struct FamilyTraits {
  std::string_view architecture;
  ChatFormat chat_format;
  std::string_view default_system;  // "" = none
  // HF marks the chat special tokens rstrip (whitespace after them in the
  // prompt is dropped); GGUF has no field for it (Phi-3).
  bool rstrip_chat_tokens;
};

// nullptr for an architecture not in the table.
const FamilyTraits* FindFamilyTraits(std::string_view architecture);

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_FAMILY_TRAITS_H_
