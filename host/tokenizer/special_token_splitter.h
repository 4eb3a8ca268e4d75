// Splits text into plain-text fragments and special tokens before the model's
// own tokenization runs on each fragment (as HF tokenizers splits on added
// tokens first). At each position the longest matching token wins.
#ifndef ORCD_HOST_TOKENIZER_SPECIAL_TOKEN_SPLITTER_H_
#define ORCD_HOST_TOKENIZER_SPECIAL_TOKEN_SPLITTER_H_

#include <array>
#include <string_view>
#include <vector>

#include "host/tokenizer/vocabulary.h"

namespace orcd {

struct TextFragment {
  TokenId token = kNoToken;  // a matched special token, or kNoToken for text
  std::string_view text;     // the plain text (empty for a token)
};

class SpecialTokenSplitter {
 public:
  // Matches control, unknown and user-defined tokens with non-empty text.
  // The vocabulary must outlive the splitter.
  explicit SpecialTokenSplitter(const Vocabulary& vocab);

  // Fragments of `text` in order. With parse_special false only user-defined
  // tokens are matched. Whitespace around a token with lstrip/rstrip is
  // dropped. Text fragments are never empty.
  std::vector<TextFragment> Split(std::string_view text, bool parse_special) const;

 private:
  // The token matching at text[pos] (longest first), or kNoToken.
  TokenId MatchAt(std::string_view text, size_t pos, bool parse_special) const;

  const Vocabulary& vocab_;
  // Candidates by first byte, longest first: most bytes have none, so the
  // scan costs one lookup per byte.
  std::array<std::vector<TokenId>, 256> by_first_byte_;
};

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_SPECIAL_TOKEN_SPLITTER_H_
