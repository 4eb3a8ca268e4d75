// Turns generated token ids into text one token at a time. Every string it
// returns is valid UTF-8 and ends on a character boundary: bytes of a
// character that is still incomplete are held until a later token completes
// it.
//
// Invalid bytes (e.g. from byte-fallback tokens <0xNN> or a byte-level token
// that is a fragment) are handled deterministically: as soon as it is certain
// that bytes can never form a character, each maximal invalid subpart (a lone
// bad byte, or a truncated sequence followed by a byte that cannot continue
// it) becomes one U+FFFD, as the Unicode standard recommends. Flush() turns a
// still-incomplete sequence at the end into one U+FFFD. Never throws on any
// token id (ids outside the vocabulary render as nothing).
//
// Special tokens (control, unknown) are skipped unless render_special is set
// or they are among render_special_ids (markup a chat output parser reads).
// For SentencePiece vocabularies the dummy-prefix space is removed from the
// start of the stream (decode_strips_leading_space()), unless the stream
// continues earlier text (DetokenizerOptions::continues_text).
#ifndef ORCD_HOST_TOKENIZER_STREAMING_DETOKENIZER_H_
#define ORCD_HOST_TOKENIZER_STREAMING_DETOKENIZER_H_

#include <span>
#include <string>
#include <vector>

#include "host/tokenizer/tokenizer.h"

namespace orcd {

struct DetokenizerOptions {
  bool render_special = false;
  std::vector<TokenId> render_special_ids;
  // The stream continues text already there (a generation after its prompt):
  // a SentencePiece token's leading space is then a real space ("Lily and
  // Ben" + "▁were" is " were"), kept as llama.cpp's server keeps it (it
  // renders each generated token whole).
  bool continues_text = false;
};

class StreamingDetokenizer {
 public:
  // The tokenizer must outlive the detokenizer.
  explicit StreamingDetokenizer(const Tokenizer& tokenizer, DetokenizerOptions options = {});

  // The text that became complete with this token (possibly empty).
  std::string Push(TokenId id);
  // The rest of the stream; the detokenizer is then ready for a new one.
  std::string Flush();
  // Drops held bytes and starts a new stream.
  void Reset();
  // True while bytes of an incomplete character are held.
  bool holding() const { return !pending_.empty(); }

 private:
  const Tokenizer& tokenizer_;
  DetokenizerOptions options_;
  std::string pending_;  // bytes of a character not yet complete
  bool at_stream_start_ = true;
};

// All of `ids` as text, through a StreamingDetokenizer.
std::string DecodeTokens(const Tokenizer& tokenizer, std::span<const TokenId> ids,
                         DetokenizerOptions options = {});

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_STREAMING_DETOKENIZER_H_
