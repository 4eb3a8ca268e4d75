// Byte-level BPE (GPT-2, Qwen2, Llama 3, o200k): optional NFC, regex
// pre-tokenization, then each piece's bytes are merged by rank. Serves both
// gguf-bpe (vocabulary and merges from GGUF metadata) and hf-json (from a
// tokenizer.json); only the loaders differ.
#ifndef ORCD_HOST_TOKENIZER_BPE_TOKENIZER_H_
#define ORCD_HOST_TOKENIZER_BPE_TOKENIZER_H_

#include <array>
#include <string>
#include <vector>

#include "host/tokenizer/bpe_merge_table.h"
#include "host/tokenizer/regex_splitter.h"
#include "host/tokenizer/vocab_tokenizer.h"

namespace orcd {

struct ByteLevelBpeOptions {
  std::string kind;                         // "gguf-bpe" or "hf-json"
  std::vector<std::string> split_patterns;  // applied in order
  bool nfc = false;                         // NFC-normalize each text fragment first
  // A piece that is itself a token is emitted whole, without merging
  // (tiktoken; HF "ignore_merges", Llama 3).
  bool ignore_merges = false;
  // A space is put in front of each fragment that does not start with one
  // (HF ByteLevel add_prefix_space).
  bool add_prefix_space = false;
};

class ByteLevelBpeTokenizer final : public VocabTokenizer {
 public:
  // Throws orcd::Error when a split pattern does not compile.
  ByteLevelBpeTokenizer(Vocabulary vocab, BpeMergeTable merges, ByteLevelBpeOptions options);

  bool decode_strips_leading_space() const override { return false; }
  std::string_view kind() const override { return options_.kind; }

 protected:
  void EncodeText(std::string_view text, bool starts_segment,
                  std::vector<TokenId>& out) const override;
  void AppendNormalPiece(std::string_view text, std::string& out) const override;

 private:
  void EncodePiece(std::string_view piece, std::vector<TokenId>& out) const;

  BpeMergeTable merges_;
  ByteLevelBpeOptions options_;
  RegexSplitter splitter_;
  // The token of each single byte; a byte without one becomes unk (or is
  // dropped when the vocabulary has no unk).
  std::array<TokenId, 256> byte_tokens_;
};

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_BPE_TOKENIZER_H_
