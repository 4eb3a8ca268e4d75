#include "host/tokenizer/vocab_tokenizer.h"

namespace orcd {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The byte of a SentencePiece byte token "<0xNN>", or -1.
int ByteTokenValue(std::string_view text) {
  if (text.size() != 6 || !text.starts_with("<0x") || text[5] != '>') return -1;
  const int hi = HexDigit(text[3]);
  const int lo = HexDigit(text[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

}  // namespace

VocabTokenizer::VocabTokenizer(Vocabulary vocab) : vocab_(std::move(vocab)), splitter_(vocab_) {}

std::vector<TokenId> VocabTokenizer::Encode(std::string_view text, bool add_special,
                                            bool parse_special) const {
  std::vector<TokenId> out;
  if (add_special && vocab_.add_bos()) out.push_back(vocab_.special_ids().bos);
  bool starts_segment = true;
  for (const TextFragment& fragment : splitter_.Split(text, parse_special)) {
    if (fragment.token != kNoToken) {
      out.push_back(fragment.token);
      starts_segment = true;
    } else {
      EncodeText(fragment.text, starts_segment, out);
      starts_segment = false;
    }
  }
  if (add_special && vocab_.add_eos()) out.push_back(vocab_.special_ids().eos);
  return out;
}

std::string VocabTokenizer::TokenToPiece(TokenId id) const {
  std::string piece;
  if (!vocab_.Contains(id)) return piece;
  const std::string_view text = vocab_.text(id);
  switch (vocab_.type(id)) {
    case TokenType::kControl:
    case TokenType::kUnknown:
    case TokenType::kUserDefined:
      piece = text;
      break;
    case TokenType::kUnused:
      break;
    case TokenType::kByte: {
      const int byte = ByteTokenValue(text);
      if (byte >= 0) {
        piece += static_cast<char>(byte);
      } else {
        AppendNormalPiece(text, piece);
      }
      break;
    }
    case TokenType::kNormal:
    case TokenType::kUndefined:
      AppendNormalPiece(text, piece);
      break;
  }
  return piece;
}

TokenType VocabTokenizer::token_type(TokenId id) const {
  return vocab_.Contains(id) ? vocab_.type(id) : TokenType::kUndefined;
}

}  // namespace orcd
