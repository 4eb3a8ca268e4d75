// GPT-2's byte-level alphabet: every byte 0..255 is written as one printable
// code point (bytes_to_unicode), so byte-level BPE vocabularies and merges are
// plain UTF-8 strings. E.g. ' ' <-> U+0120 'Ġ', '\n' <-> U+010A 'Ċ'.
#ifndef ORCD_HOST_TOKENIZER_BYTE_LEVEL_H_
#define ORCD_HOST_TOKENIZER_BYTE_LEVEL_H_

#include <string>
#include <string_view>

namespace orcd {

// The UTF-8 text of byte b's code point.
std::string_view ByteLevelChar(unsigned char b);

// Appends the byte-level text of raw bytes.
void ByteLevelEncode(std::string_view bytes, std::string& out);

// Appends the raw bytes of byte-level text. Characters outside the alphabet
// (e.g. an added token's own text) are copied unchanged.
void ByteLevelDecode(std::string_view text, std::string& out);

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_BYTE_LEVEL_H_
