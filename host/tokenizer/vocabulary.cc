#include "host/tokenizer/vocabulary.h"

#include <algorithm>
#include <array>

#include "host/common/status.h"

namespace orcd {
namespace {

// Texts that mark the end of a chat turn, in order of preference (the first
// present wins). "<|return|>" before "<|end|>": in harmony (gpt-oss) <|end|>
// only closes a message, the assistant's turn ends with <|return|>.
constexpr std::array<std::string_view, 7> kEndOfTurnTexts = {
    "<|eot_id|>", "<|im_end|>", "<|return|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<EOT>"};
// Control tokens that also end generation when present. "<|end|>" is in this
// list only for vocabularies without "<|return|>" (harmony).
constexpr std::array<std::string_view, 8> kEndOfGenerationTexts = {
    "<|eot_id|>", "<|eom_id|>",    "<|im_end|>",    "<|return|>",
    "<|call|>",   "<end_of_turn>", "<|endoftext|>", "<EOT>"};

}  // namespace

Vocabulary::Vocabulary(std::vector<std::string> texts, std::vector<TokenType> types,
                       std::vector<float> scores)
    : texts_(std::move(texts)), types_(std::move(types)), scores_(std::move(scores)) {
  if (types_.empty()) types_.assign(texts_.size(), TokenType::kNormal);
  if (types_.size() != texts_.size() || (!scores_.empty() && scores_.size() != texts_.size())) {
    throw Error(ErrorCode::kModelInvalid, "tokenizer vocabulary: " + std::to_string(texts_.size()) +
                                              " tokens but " + std::to_string(types_.size()) +
                                              " token types and " + std::to_string(scores_.size()) +
                                              " scores");
  }
  attrs_.assign(texts_.size(), 0);
  ids_by_text_.reserve(texts_.size());
  for (size_t i = 0; i < texts_.size(); ++i) {
    if (texts_[i].empty()) continue;                           // gaps of a sparse vocabulary
    ids_by_text_.emplace(texts_[i], static_cast<TokenId>(i));  // keeps the lower id
  }
}

TokenId Vocabulary::Find(std::string_view text) const {
  const auto it = ids_by_text_.find(text);
  return it == ids_by_text_.end() ? kNoToken : it->second;
}

void Vocabulary::SetStrip(TokenId id, bool lstrip, bool rstrip) {
  attrs_[static_cast<size_t>(id)] =
      static_cast<uint8_t>((lstrip ? kLstrip : 0) | (rstrip ? kRstrip : 0));
}

void Vocabulary::SetSpecialIds(const SpecialTokenIds& ids, std::string_view source) {
  const auto check = [&](TokenId id, std::string_view what) {
    if (id != kNoToken && !Contains(id)) {
      throw Error(ErrorCode::kModelInvalid, std::string(source) + ": " + std::string(what) +
                                                " token id " + std::to_string(id) +
                                                " is outside the vocabulary (" +
                                                std::to_string(size()) + " tokens)");
    }
  };
  check(ids.bos, "bos");
  check(ids.eos, "eos");
  check(ids.eot, "eot");
  check(ids.pad, "pad");
  check(ids.unk, "unk");
  special_ids_ = ids;
  for (size_t i = 0; special_ids_.eot == kNoToken && i < kEndOfTurnTexts.size(); ++i) {
    special_ids_.eot = Find(kEndOfTurnTexts[i]);
  }

  end_of_generation_ids_.clear();
  const auto add = [&](TokenId id) {
    if (id != kNoToken && std::find(end_of_generation_ids_.begin(), end_of_generation_ids_.end(),
                                    id) == end_of_generation_ids_.end()) {
      end_of_generation_ids_.push_back(id);
    }
  };
  add(special_ids_.eos);
  add(special_ids_.eot);
  const auto add_control = [&](std::string_view text) {
    const TokenId id = Find(text);
    if (id != kNoToken &&
        (type(id) == TokenType::kControl || type(id) == TokenType::kUserDefined)) {
      add(id);
    }
  };
  for (const std::string_view text : kEndOfGenerationTexts) add_control(text);
  if (Find("<|return|>") == kNoToken) add_control("<|end|>");
}

void Vocabulary::SetAddSpecial(bool add_bos, bool add_eos) {
  if ((add_bos && special_ids_.bos == kNoToken) || (add_eos && special_ids_.eos == kNoToken)) {
    throw Error(ErrorCode::kModelInvalid, std::string("tokenizer asks to add ") +
                                              (add_bos ? "BOS" : "EOS") +
                                              " but the vocabulary names no such token");
  }
  add_bos_ = add_bos;
  add_eos_ = add_eos;
}

}  // namespace orcd
