#include "host/tokenizer/streaming_detokenizer.h"

#include <algorithm>

#include "host/tokenizer/utf8.h"

namespace orcd {

StreamingDetokenizer::StreamingDetokenizer(const Tokenizer& tokenizer, DetokenizerOptions options)
    : tokenizer_(tokenizer), options_(options) {}

std::string StreamingDetokenizer::Push(TokenId id) {
  if (!options_.render_special && tokenizer_.IsSpecial(id) &&
      std::find(options_.render_special_ids.begin(), options_.render_special_ids.end(), id) ==
          options_.render_special_ids.end()) {
    return {};
  }
  std::string piece = tokenizer_.TokenToPiece(id);
  if (piece.empty()) return {};
  if (at_stream_start_) {
    at_stream_start_ = false;
    if (!options_.continues_text && tokenizer_.decode_strips_leading_space() &&
        piece.front() == ' ') {
      piece.erase(0, 1);
    }
  }
  pending_ += piece;

  std::string out;
  size_t pos = 0;
  while (pos < pending_.size()) {
    const Utf8Scan scan = ScanUtf8(pending_, pos);
    if (scan.kind == Utf8Scan::kIncomplete) break;
    if (scan.kind == Utf8Scan::kValid) {
      out.append(pending_, pos, scan.length);
    } else {
      out += kUtf8Replacement;
    }
    pos += scan.length;
  }
  pending_.erase(0, pos);
  return out;
}

std::string StreamingDetokenizer::Flush() {
  std::string out = pending_.empty() ? std::string() : std::string(kUtf8Replacement);
  Reset();
  return out;
}

void StreamingDetokenizer::Reset() {
  pending_.clear();
  at_stream_start_ = true;
}

std::string DecodeTokens(const Tokenizer& tokenizer, std::span<const TokenId> ids,
                         DetokenizerOptions options) {
  StreamingDetokenizer detokenizer(tokenizer, options);
  std::string text;
  for (const TokenId id : ids) text += detokenizer.Push(id);
  return text + detokenizer.Flush();
}

}  // namespace orcd
