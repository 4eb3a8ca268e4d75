// A tokenizer's vocabulary: token texts (as the model file stores them),
// types, scores, text -> id lookup, special ids and the add-BOS/EOS rule.
// Every implementation keeps one; it owns its strings, so the model file may
// be closed after loading.
#ifndef ORCD_HOST_TOKENIZER_VOCABULARY_H_
#define ORCD_HOST_TOKENIZER_VOCABULARY_H_

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "host/tokenizer/tokenizer.h"

namespace orcd {

class Vocabulary {
 public:
  // texts[i] is token i. `types` and `scores` are empty (all kNormal / 0) or
  // as long as `texts`; throws orcd::Error(kModelInvalid) otherwise. When two
  // tokens have the same text, lookup finds the lower id.
  Vocabulary(std::vector<std::string> texts, std::vector<TokenType> types,
             std::vector<float> scores);
  Vocabulary(Vocabulary&&) = default;
  Vocabulary& operator=(Vocabulary&&) = default;
  // The lookup holds views of the strings: no copies.
  Vocabulary(const Vocabulary&) = delete;
  Vocabulary& operator=(const Vocabulary&) = delete;

  size_t size() const { return texts_.size(); }
  bool Contains(TokenId id) const { return id >= 0 && static_cast<size_t>(id) < texts_.size(); }
  std::string_view text(TokenId id) const { return texts_[static_cast<size_t>(id)]; }
  TokenType type(TokenId id) const { return types_[static_cast<size_t>(id)]; }
  float score(TokenId id) const {
    return scores_.empty() ? 0.0f : scores_[static_cast<size_t>(id)];
  }
  // kNoToken when no token has this text.
  TokenId Find(std::string_view text) const;

  // When matched in text as a special token, whitespace right after it
  // (rstrip) / right before it (lstrip) is dropped, as HF tokenizers do.
  bool rstrip(TokenId id) const { return (attrs_[static_cast<size_t>(id)] & kRstrip) != 0; }
  bool lstrip(TokenId id) const { return (attrs_[static_cast<size_t>(id)] & kLstrip) != 0; }
  void SetStrip(TokenId id, bool lstrip, bool rstrip);

  const SpecialTokenIds& special_ids() const { return special_ids_; }
  const std::vector<TokenId>& end_of_generation_ids() const { return end_of_generation_ids_; }
  // Throws orcd::Error(kModelInvalid) naming `source` for an id outside the
  // vocabulary. Fills eot from well-known end-of-turn texts when unset and
  // derives the end-of-generation set (see Tokenizer::end_of_generation_ids).
  void SetSpecialIds(const SpecialTokenIds& ids, std::string_view source);
  bool add_bos() const { return add_bos_; }
  bool add_eos() const { return add_eos_; }
  // Throws when the flag is set but the token is missing.
  void SetAddSpecial(bool add_bos, bool add_eos);

 private:
  static constexpr uint8_t kLstrip = 1;
  static constexpr uint8_t kRstrip = 2;

  std::vector<std::string> texts_;
  std::vector<TokenType> types_;
  std::vector<float> scores_;
  std::vector<uint8_t> attrs_;
  std::unordered_map<std::string_view, TokenId> ids_by_text_;
  SpecialTokenIds special_ids_;
  std::vector<TokenId> end_of_generation_ids_;
  bool add_bos_ = false;
  bool add_eos_ = false;
};

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_VOCABULARY_H_
