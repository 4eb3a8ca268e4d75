#include "host/tokenizer/byte_level.h"

#include <array>
#include <cstdint>

#include "host/tokenizer/utf8.h"

namespace orcd {
namespace {

// Bytes that are printable Latin-1 keep their code point; the others take
// 256, 257, ... in byte order (GPT-2's bytes_to_unicode).
constexpr uint32_t kMaxCodePoint = 256 + 68;

struct ByteLevelTables {
  std::array<std::string, 256> text_of_byte;
  std::array<int16_t, kMaxCodePoint> byte_of_code_point;  // -1: not in the alphabet

  ByteLevelTables() {
    byte_of_code_point.fill(-1);
    uint32_t next_extra = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      const uint32_t cp = printable ? b : next_extra++;
      AppendUtf8(cp, text_of_byte[b]);
      byte_of_code_point[cp] = static_cast<int16_t>(b);
    }
  }
};

const ByteLevelTables& Tables() {
  static const ByteLevelTables tables;
  return tables;
}

}  // namespace

std::string_view ByteLevelChar(unsigned char b) { return Tables().text_of_byte[b]; }

void ByteLevelEncode(std::string_view bytes, std::string& out) {
  const ByteLevelTables& t = Tables();
  for (const char c : bytes) out += t.text_of_byte[static_cast<unsigned char>(c)];
}

void ByteLevelDecode(std::string_view text, std::string& out) {
  const ByteLevelTables& t = Tables();
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    const uint32_t cp = DecodeUtf8(text, pos);
    const int byte = cp < kMaxCodePoint ? t.byte_of_code_point[cp] : -1;
    if (byte >= 0) {
      out += static_cast<char>(byte);
    } else {
      out.append(text.substr(start, pos - start));
    }
  }
}

}  // namespace orcd
