// hf-json: a HF tokenizers tokenizer.json with a byte-level BPE model, as
// Qwen2, Llama 3 and gpt-oss ship. Supported components: model BPE (vocab,
// merges as "a b" strings or [a, b] pairs, ignore_merges); normalizer null,
// NFC or a Sequence of those; pre_tokenizer Split (Regex or String pattern,
// behaviour Isolated) and ByteLevel, alone or in a Sequence; added_tokens
// (special -> control, else user-defined; lstrip / rstrip honoured,
// single_word and normalized ignored: matched as written). Anything
// else is refused with an error naming it. The decoder is not read: pieces are
// decoded byte-level.
//
// tokenizer.json carries no BOS/EOS ids: they come from the model's GGUF when
// given, else from tokenizer_config.json beside the file, else there are none.
#ifndef ORCD_HOST_TOKENIZER_HF_JSON_TOKENIZER_H_
#define ORCD_HOST_TOKENIZER_HF_JSON_TOKENIZER_H_

#include <filesystem>
#include <memory>

#include "host/tokenizer/tokenizer.h"

namespace orcd {

class GgufFile;

// `model`: the GGUF the tokenizer serves, or nullptr. When it has a
// vocabulary, every token id of the file must have the same text there.
// Throws orcd::Error (kNotFound, kIo, kModelInvalid, kUnsupported).
std::unique_ptr<Tokenizer> LoadHfJsonTokenizer(const std::filesystem::path& path,
                                               const GgufFile* model = nullptr);

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_HF_JSON_TOKENIZER_H_
