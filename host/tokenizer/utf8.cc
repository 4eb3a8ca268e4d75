#include "host/tokenizer/utf8.h"

namespace orcd {
namespace {

// Number of continuation bytes a lead byte needs and the allowed range of the
// first one (the later ones are always 80..BF); need = -1 for a bad lead.
struct LeadRule {
  int need;
  uint8_t lo;
  uint8_t hi;
};

LeadRule RuleFor(uint8_t lead) {
  if (lead < 0x80) return {0, 0, 0};
  if (lead >= 0xC2 && lead <= 0xDF) return {1, 0x80, 0xBF};
  if (lead == 0xE0) return {2, 0xA0, 0xBF};
  if (lead == 0xED) return {2, 0x80, 0x9F};  // no surrogates
  if (lead >= 0xE1 && lead <= 0xEF) return {2, 0x80, 0xBF};
  if (lead == 0xF0) return {3, 0x90, 0xBF};
  if (lead >= 0xF1 && lead <= 0xF3) return {3, 0x80, 0xBF};
  if (lead == 0xF4) return {3, 0x80, 0x8F};  // <= U+10FFFF
  return {-1, 0, 0};                         // 80..C1 (continuation or overlong lead), F5..FF
}

}  // namespace

Utf8Scan ScanUtf8(std::string_view s, size_t pos) {
  const LeadRule rule = RuleFor(static_cast<uint8_t>(s[pos]));
  if (rule.need < 0) return {Utf8Scan::kInvalid, 1};
  for (int k = 1; k <= rule.need; ++k) {
    if (pos + k >= s.size()) return {Utf8Scan::kIncomplete, s.size() - pos};
    const auto b = static_cast<uint8_t>(s[pos + k]);
    const uint8_t lo = k == 1 ? rule.lo : 0x80;
    const uint8_t hi = k == 1 ? rule.hi : 0xBF;
    if (b < lo || b > hi) return {Utf8Scan::kInvalid, static_cast<size_t>(k)};
  }
  return {Utf8Scan::kValid, static_cast<size_t>(rule.need + 1)};
}

bool IsValidUtf8(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    const Utf8Scan scan = ScanUtf8(s, pos);
    if (scan.kind != Utf8Scan::kValid) return false;
    pos += scan.length;
  }
  return true;
}

bool IsAscii(std::string_view s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

uint32_t DecodeUtf8(std::string_view s, size_t& pos) {
  const Utf8Scan scan = ScanUtf8(s, pos);
  const auto lead = static_cast<uint8_t>(s[pos]);
  if (scan.kind != Utf8Scan::kValid) {
    ++pos;
    return lead;
  }
  static constexpr uint8_t kLeadMask[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t cp = lead & kLeadMask[scan.length];
  for (size_t k = 1; k < scan.length; ++k)
    cp = (cp << 6) | (static_cast<uint8_t>(s[pos + k]) & 0x3F);
  pos += scan.length;
  return cp;
}

}  // namespace orcd
