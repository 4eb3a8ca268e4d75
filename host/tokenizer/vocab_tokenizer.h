// What every orcd tokenizer shares: the vocabulary, splitting out special
// tokens, the BOS/EOS rule and rendering pieces by token type. Subclasses
// supply the model: how a plain-text fragment becomes ids and how a normal
// token's text becomes bytes.
#ifndef ORCD_HOST_TOKENIZER_VOCAB_TOKENIZER_H_
#define ORCD_HOST_TOKENIZER_VOCAB_TOKENIZER_H_

#include <string>
#include <string_view>
#include <vector>

#include "host/tokenizer/special_token_splitter.h"
#include "host/tokenizer/tokenizer.h"
#include "host/tokenizer/vocabulary.h"

namespace orcd {

class VocabTokenizer : public Tokenizer {
 public:
  // The splitter refers to the vocabulary: not copyable or movable.
  VocabTokenizer(const VocabTokenizer&) = delete;
  VocabTokenizer& operator=(const VocabTokenizer&) = delete;

  std::vector<TokenId> Encode(std::string_view text, bool add_special,
                              bool parse_special) const override;
  std::string TokenToPiece(TokenId id) const override;
  TokenType token_type(TokenId id) const override;
  size_t vocab_size() const override { return vocab_.size(); }
  const SpecialTokenIds& special_ids() const override { return vocab_.special_ids(); }
  const std::vector<TokenId>& end_of_generation_ids() const override {
    return vocab_.end_of_generation_ids();
  }
  bool add_bos() const override { return vocab_.add_bos(); }
  bool add_eos() const override { return vocab_.add_eos(); }

  const Vocabulary& vocab() const { return vocab_; }

 protected:
  explicit VocabTokenizer(Vocabulary vocab);

  // Appends the ids of one non-empty plain-text fragment. starts_segment: the
  // fragment begins the text or follows a special token.
  virtual void EncodeText(std::string_view text, bool starts_segment,
                          std::vector<TokenId>& out) const = 0;
  // Appends the bytes of a normal token given its vocabulary text.
  virtual void AppendNormalPiece(std::string_view text, std::string& out) const = 0;

 private:
  Vocabulary vocab_;
  SpecialTokenSplitter splitter_;
};

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_VOCAB_TOKENIZER_H_
