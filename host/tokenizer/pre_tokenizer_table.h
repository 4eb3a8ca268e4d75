// The byte-level BPE pre-tokenizers orcd knows, by the name GGUF files give
// in tokenizer.ggml.pre. Each entry is what the model's own (HF / tiktoken)
// tokenizer does: its split regex, its normalizer and whether whole-token
// pieces skip merging.
#ifndef ORCD_HOST_TOKENIZER_PRE_TOKENIZER_TABLE_H_
#define ORCD_HOST_TOKENIZER_PRE_TOKENIZER_TABLE_H_

#include <string>
#include <string_view>

namespace orcd {

struct PreTokenizerSpec {
  std::string_view name;
  std::string_view pattern;
  bool nfc;            // Qwen2's tokenizer.json normalizes to NFC
  bool ignore_merges;  // tiktoken / Llama 3: a piece that is a token is kept whole
  bool add_bos;        // default when tokenizer.ggml.add_bos_token is absent
};

// Throws orcd::Error(kUnsupported) naming `name` and the known names.
const PreTokenizerSpec& FindPreTokenizer(std::string_view name);
// nullptr for an unknown name.
const PreTokenizerSpec* TryFindPreTokenizer(std::string_view name);

// "gpt-2, qwen2, ..." for messages.
std::string KnownPreTokenizerNames();

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_PRE_TOKENIZER_TABLE_H_
