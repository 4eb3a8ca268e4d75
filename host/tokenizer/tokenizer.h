// The tokenizer interface the host uses: text -> token ids and token id ->
// bytes, plus the vocabulary facts generation needs (special ids, the add-BOS
// rule). Implementations: gguf-bpe (byte-level BPE), gguf-spm (SentencePiece
// BPE with byte fallback) and hf-json (a HF tokenizer.json); see
// tokenizer_factory.h for how one is chosen.
#ifndef ORCD_HOST_TOKENIZER_TOKENIZER_H_
#define ORCD_HOST_TOKENIZER_TOKENIZER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace orcd {

using TokenId = int32_t;
inline constexpr TokenId kNoToken = -1;

// GGUF numbering (tokenizer.ggml.token_type).
enum class TokenType : uint8_t {
  kUndefined = 0,
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,      // special: <s>, <|im_start|> ... matched in text only with parse_special
  kUserDefined = 4,  // added tokens that are always matched in text
  kUnused = 5,       // padding entries: never produced, render as nothing
  kByte = 6,         // SentencePiece byte fallback <0xNN>
};

struct SpecialTokenIds {
  TokenId bos = kNoToken;
  TokenId eos = kNoToken;
  TokenId eot = kNoToken;  // end of turn (chat); may equal eos
  TokenId pad = kNoToken;
  TokenId unk = kNoToken;
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Token ids of `text`. add_special: prepend BOS / append EOS when the
  // vocabulary's rule says so (add_bos() / add_eos()). parse_special: the text
  // of a control token (e.g. "<|im_start|>") becomes that one token; without
  // it such text is tokenized as plain text. User-defined tokens always match.
  // Never throws for any byte sequence (invalid UTF-8 is tokenized byte-wise).
  virtual std::vector<TokenId> Encode(std::string_view text, bool add_special,
                                      bool parse_special) const = 0;

  // The bytes `id` stands for: control and unknown tokens give their text
  // (callers skip them with IsSpecial), unused ones nothing. A piece may be a
  // fragment of a UTF-8 character; use StreamingDetokenizer to build text.
  // Ids outside the vocabulary give "".
  virtual std::string TokenToPiece(TokenId id) const = 0;

  // kUndefined for ids outside the vocabulary.
  virtual TokenType token_type(TokenId id) const = 0;
  virtual size_t vocab_size() const = 0;
  virtual const SpecialTokenIds& special_ids() const = 0;
  virtual bool add_bos() const = 0;
  virtual bool add_eos() const = 0;
  // True when encoding puts a space in front of the text (SentencePiece's
  // dummy prefix): decoding then drops the first leading space of the output.
  virtual bool decode_strips_leading_space() const = 0;
  // "gguf-bpe", "gguf-spm" or "hf-json".
  virtual std::string_view kind() const = 0;

  // Control or unknown token (not text a user would see).
  bool IsSpecial(TokenId id) const {
    const TokenType t = token_type(id);
    return t == TokenType::kControl || t == TokenType::kUnknown;
  }
  // Tokens that end generation: eos, eot and the other end-of-turn control
  // tokens the vocabulary has (e.g. Qwen2's <|endoftext|> next to <|im_end|>,
  // gpt-oss's <|call|> next to <|return|>; gpt-oss's <|end|> only closes a
  // message and is not one).
  virtual const std::vector<TokenId>& end_of_generation_ids() const = 0;
  bool IsEndOfGeneration(TokenId id) const {
    for (const TokenId eog : end_of_generation_ids()) {
      if (id == eog) return true;
    }
    return false;
  }
};

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_TOKENIZER_H_
