#include "host/tokenizer/special_token_splitter.h"

#include <algorithm>

namespace orcd {
namespace {

// ASCII whitespace, as stripped around lstrip/rstrip tokens.
bool IsStripSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

SpecialTokenSplitter::SpecialTokenSplitter(const Vocabulary& vocab) : vocab_(vocab) {
  for (size_t i = 0; i < vocab.size(); ++i) {
    const auto id = static_cast<TokenId>(i);
    const TokenType type = vocab.type(id);
    if (type != TokenType::kControl && type != TokenType::kUnknown &&
        type != TokenType::kUserDefined) {
      continue;
    }
    const std::string_view text = vocab.text(id);
    if (!text.empty()) by_first_byte_[static_cast<unsigned char>(text[0])].push_back(id);
  }
  for (std::vector<TokenId>& bucket : by_first_byte_) {
    std::stable_sort(bucket.begin(), bucket.end(), [&](TokenId a, TokenId b) {
      return vocab.text(a).size() > vocab.text(b).size();
    });
  }
}

TokenId SpecialTokenSplitter::MatchAt(std::string_view text, size_t pos, bool parse_special) const {
  for (const TokenId id : by_first_byte_[static_cast<unsigned char>(text[pos])]) {
    if (!parse_special && vocab_.type(id) != TokenType::kUserDefined) continue;
    const std::string_view token = vocab_.text(id);
    if (text.substr(pos, token.size()) == token) return id;
  }
  return kNoToken;
}

std::vector<TextFragment> SpecialTokenSplitter::Split(std::string_view text,
                                                      bool parse_special) const {
  std::vector<TextFragment> fragments;
  const auto add_text = [&](size_t begin, size_t end) {
    if (end > begin) fragments.push_back({kNoToken, text.substr(begin, end - begin)});
  };
  size_t text_start = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const TokenId id = MatchAt(text, pos, parse_special);
    if (id == kNoToken) {
      ++pos;
      continue;
    }
    size_t text_end = pos;
    if (vocab_.lstrip(id)) {
      while (text_end > text_start && IsStripSpace(text[text_end - 1])) --text_end;
    }
    add_text(text_start, text_end);
    fragments.push_back({id, {}});
    pos += vocab_.text(id).size();
    if (vocab_.rstrip(id)) {
      while (pos < text.size() && IsStripSpace(text[pos])) ++pos;
    }
    text_start = pos;
  }
  add_text(text_start, text.size());
  return fragments;
}

}  // namespace orcd
