#include "host/tokenizer/gguf_vocabulary.h"

#include <cstdint>
#include <string>
#include <vector>

#include "host/common/status.h"
#include "host/tokenizer/family_traits.h"

namespace orcd {
namespace {

TokenId ReadId(const GgufFile& gguf, std::string_view key) {
  const GgufValue* value = gguf.Find(key);
  if (value == nullptr) return kNoToken;
  const std::optional<int64_t> id = value->AsI64();
  if (id && *id == UINT32_MAX) return kNoToken;  // -1 written as an unsigned 32-bit value
  if (!id || *id < -1 || *id > INT32_MAX) {
    throw Error(ErrorCode::kModelInvalid,
                gguf.source_name() + ": " + std::string(key) + " is not a token id");
  }
  return static_cast<TokenId>(*id);
}

std::vector<TokenType> ReadTypes(const GgufFile& gguf) {
  constexpr std::string_view kKey = "tokenizer.ggml.token_type";
  if (gguf.Find(kKey) == nullptr) return {};
  const std::optional<std::vector<int64_t>> raw = gguf.GetIntArray(kKey);
  if (!raw)
    throw Error(ErrorCode::kModelInvalid,
                gguf.source_name() + ": " + std::string(kKey) + " is not an integer array");
  std::vector<TokenType> types;
  types.reserve(raw->size());
  for (size_t i = 0; i < raw->size(); ++i) {
    const int64_t t = (*raw)[i];
    if (t < 0 || t > static_cast<int64_t>(TokenType::kByte)) {
      throw Error(ErrorCode::kModelInvalid, gguf.source_name() + ": " + std::string(kKey) + "[" +
                                                std::to_string(i) + "] = " + std::to_string(t) +
                                                " is not a token type");
    }
    types.push_back(static_cast<TokenType>(t));
  }
  return types;
}

// Marks the chat special tokens rstrip where the family's HF tokenizer does
// (all control / user-defined tokens but bos, eos, pad and unk).
void ApplyFamilyQuirks(Vocabulary& vocab, const FamilyTraits* traits) {
  if (traits == nullptr || !traits->rstrip_chat_tokens) return;
  const SpecialTokenIds& s = vocab.special_ids();
  for (size_t i = 0; i < vocab.size(); ++i) {
    const auto id = static_cast<TokenId>(i);
    const TokenType type = vocab.type(id);
    if (type != TokenType::kControl && type != TokenType::kUserDefined) continue;
    if (id == s.bos || id == s.eos || id == s.pad || id == s.unk) continue;
    vocab.SetStrip(id, false, true);
  }
}

}  // namespace

SpecialTokenIds ReadGgufSpecialIds(const GgufFile& gguf) {
  SpecialTokenIds ids;
  ids.bos = ReadId(gguf, "tokenizer.ggml.bos_token_id");
  ids.eos = ReadId(gguf, "tokenizer.ggml.eos_token_id");
  ids.eot = ReadId(gguf, "tokenizer.ggml.eot_token_id");
  ids.pad = ReadId(gguf, "tokenizer.ggml.padding_token_id");
  ids.unk = ReadId(gguf, "tokenizer.ggml.unknown_token_id");
  return ids;
}

void ApplyGgufSpecials(const GgufFile& gguf, bool default_add_bos, Vocabulary& vocab) {
  vocab.SetSpecialIds(ReadGgufSpecialIds(gguf), gguf.source_name());
  // An explicit add_*_token without its token is an error; a default is not.
  const bool has_bos = vocab.special_ids().bos != kNoToken;
  vocab.SetAddSpecial(
      gguf.GetBool("tokenizer.ggml.add_bos_token").value_or(default_add_bos && has_bos),
      gguf.GetBool("tokenizer.ggml.add_eos_token").value_or(false));
}

Vocabulary LoadGgufVocabulary(const GgufFile& gguf, bool default_add_bos,
                              const FamilyTraits* family) {
  const std::optional<std::vector<std::string_view>> tokens =
      gguf.GetStringArray("tokenizer.ggml.tokens");
  if (!tokens || tokens->empty()) {
    throw Error(ErrorCode::kModelInvalid,
                gguf.source_name() + ": tokenizer.ggml.tokens is missing or not a string array");
  }
  std::vector<float> scores;
  if (gguf.Find("tokenizer.ggml.scores") != nullptr) {
    std::optional<std::vector<float>> read = gguf.GetF32Array("tokenizer.ggml.scores");
    if (!read)
      throw Error(ErrorCode::kModelInvalid,
                  gguf.source_name() + ": tokenizer.ggml.scores is not a float array");
    scores = std::move(*read);
  }
  Vocabulary vocab(std::vector<std::string>(tokens->begin(), tokens->end()), ReadTypes(gguf),
                   std::move(scores));
  ApplyGgufSpecials(gguf, default_add_bos, vocab);
  ApplyFamilyQuirks(vocab, family);
  return vocab;
}

}  // namespace orcd
