// SentencePiece-style BPE (llama, phi3 GGUF vocabularies): spaces become
// U+2581 '▁', a '▁' is put in front of each text segment (the dummy prefix,
// tokenizer.ggml.add_space_prefix, default on), then adjacent symbols are
// merged greedily by the score of the token they form (highest first,
// leftmost on ties). Characters no token covers fall back to byte tokens
// <0xNN>. This is the algorithm of llama.cpp's llm_tokenizer_spm, which
// reproduces the HF tokenizers of Llama and Phi-3 on their test vectors.
#ifndef ORCD_HOST_TOKENIZER_SPM_TOKENIZER_H_
#define ORCD_HOST_TOKENIZER_SPM_TOKENIZER_H_

#include <array>

#include "host/tokenizer/vocab_tokenizer.h"

namespace orcd {

class SpmTokenizer final : public VocabTokenizer {
 public:
  SpmTokenizer(Vocabulary vocab, bool add_space_prefix);

  bool decode_strips_leading_space() const override { return add_space_prefix_; }
  std::string_view kind() const override { return "gguf-spm"; }

 protected:
  void EncodeText(std::string_view text, bool starts_segment,
                  std::vector<TokenId>& out) const override;
  void AppendNormalPiece(std::string_view text, std::string& out) const override;

 private:
  // The token a merged symbol may become: normal or user-defined only.
  TokenId FindMergeable(std::string_view text) const;
  void AppendBytes(std::string_view text, std::vector<TokenId>& out) const;

  bool add_space_prefix_;
  std::array<TokenId, 256> byte_tokens_;  // <0xNN>, else unk
};

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_SPM_TOKENIZER_H_
