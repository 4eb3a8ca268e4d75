// UTF-8 scanning by the well-formed byte sequences of Unicode (Table 3-7):
// no overlong forms, no surrogates, nothing above U+10FFFF.
#ifndef ORCD_HOST_TOKENIZER_UTF8_H_
#define ORCD_HOST_TOKENIZER_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace orcd {

inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";  // U+FFFD

struct Utf8Scan {
  enum Kind {
    kValid,       // a whole character of `length` bytes
    kIncomplete,  // the rest of the text is a proper prefix of a character
    kInvalid,     // `length` (>= 1) bytes that can never start a character:
                  // the "maximal subpart" that becomes one U+FFFD
  };
  Kind kind;
  size_t length;
};

// Scans the character starting at s[pos] (pos < s.size()).
Utf8Scan ScanUtf8(std::string_view s, size_t pos);

bool IsValidUtf8(std::string_view s);
bool IsAscii(std::string_view s);

// Appends the UTF-8 encoding of a code point (<= U+10FFFF).
void AppendUtf8(uint32_t code_point, std::string& out);

// Decodes the valid character at s[pos] and advances pos; an invalid or
// incomplete sequence yields its first byte's value and advances by one.
uint32_t DecodeUtf8(std::string_view s, size_t& pos);

}  // namespace orcd

#endif  // ORCD_HOST_TOKENIZER_UTF8_H_
