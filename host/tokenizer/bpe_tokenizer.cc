#include "host/tokenizer/bpe_tokenizer.h"

#include "host/tokenizer/byte_level.h"
#include "host/tokenizer/thread_scratch.h"
#include "host/tokenizer/unicode_normalizer.h"

namespace orcd {

ByteLevelBpeTokenizer::ByteLevelBpeTokenizer(Vocabulary vocab, BpeMergeTable merges,
                                             ByteLevelBpeOptions options)
    : VocabTokenizer(std::move(vocab)),
      merges_(std::move(merges)),
      options_(std::move(options)),
      splitter_(options_.split_patterns) {
  for (unsigned b = 0; b < 256; ++b) {
    const TokenId id = this->vocab().Find(ByteLevelChar(static_cast<unsigned char>(b)));
    byte_tokens_[b] = id != kNoToken ? id : this->vocab().special_ids().unk;
  }
}

void ByteLevelBpeTokenizer::EncodeText(std::string_view text, bool /*starts_segment*/,
                                       std::vector<TokenId>& out) const {
  std::string normalized;
  if (options_.nfc) {
    normalized = NormalizeNfc(text);
    text = normalized;
  }
  if (options_.add_prefix_space && !text.starts_with(' ')) {
    normalized = " " + std::string(text);
    text = normalized;
  }
  thread_local std::vector<std::string_view> pieces;
  pieces.clear();
  splitter_.Split(text, pieces);
  for (const std::string_view piece : pieces) EncodePiece(piece, out);
  ReleaseIfLarge(pieces);
}

void ByteLevelBpeTokenizer::EncodePiece(std::string_view piece, std::vector<TokenId>& out) const {
  if (options_.ignore_merges) {
    thread_local std::string encoded;
    encoded.clear();
    ByteLevelEncode(piece, encoded);
    const TokenId whole = vocab().Find(encoded);
    if (whole != kNoToken && vocab().type(whole) == TokenType::kNormal) {
      out.push_back(whole);
      return;
    }
  }
  thread_local std::vector<TokenId> symbols;
  symbols.clear();
  for (const char c : piece) {
    const TokenId id = byte_tokens_[static_cast<unsigned char>(c)];
    if (id != kNoToken) symbols.push_back(id);
  }
  merges_.Apply(symbols);
  out.insert(out.end(), symbols.begin(), symbols.end());
  ReleaseIfLarge(symbols);
}

void ByteLevelBpeTokenizer::AppendNormalPiece(std::string_view text, std::string& out) const {
  ByteLevelDecode(text, out);
}

}  // namespace orcd
