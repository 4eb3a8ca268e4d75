// Unicode normalization of text before tokenization (HF "normalizer"; Qwen2
// uses NFC). Backed by ICU.
#ifndef ORCD_HOST_TOKENIZER_UNICODE_NORMALIZER_H_
#define ORCD_HOST_TOKENIZER_UNICODE_NORMALIZER_H_

#include <string>
#include <string_view>

namespace orcd {

// Returns `text` in NFC. Text that is not valid UTF-8 is returned unchanged
// (normalization is only defined on characters; byte-level BPE still encodes
// the raw bytes). Cheap when the text is ASCII or already NFC.
std::string NormalizeNfc(std::string_view text);

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_UNICODE_NORMALIZER_H_
