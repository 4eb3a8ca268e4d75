// Reading a tokenizer vocabulary from GGUF metadata (tokenizer.ggml.*).
#ifndef ORCD_HOST_TOKENIZER_GGUF_VOCABULARY_H_
#define ORCD_HOST_TOKENIZER_GGUF_VOCABULARY_H_

#include "host/gguf/gguf_file.h"
#include "host/tokenizer/vocabulary.h"

#include "host/tokenizer/family_traits.h"

namespace orcd {

// tokenizer.ggml.{bos,eos,eot,padding,unknown}_token_id (absent: kNoToken).
SpecialTokenIds ReadGgufSpecialIds(const GgufFile& gguf);

// Sets the special ids and the add-BOS/EOS rule (tokenizer.ggml.add_bos_token,
// else `default_add_bos` when there is a BOS token; add_eos_token, else false).
void ApplyGgufSpecials(const GgufFile& gguf, bool default_add_bos, Vocabulary& vocab);

// Tokens, types, scores, ApplyGgufSpecials, plus the family's quirks
// (family_traits.h; null: none). Throws orcd::Error(kModelInvalid) naming the
// key that is missing or malformed.
Vocabulary LoadGgufVocabulary(const GgufFile& gguf, bool default_add_bos,
                              const FamilyTraits* family = nullptr);

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_GGUF_VOCABULARY_H_
