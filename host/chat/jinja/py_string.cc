#include "host/chat/jinja/py_string.h"

#include <unicode/uchar.h>
#include <unicode/ustring.h>

#include <algorithm>
#include <cctype>

namespace orcd::jinja {
namespace {

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

std::u16string ToUtf16(std::string_view s) {
  std::u16string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) {
    const char32_t cp = NextCodePoint(s, pos);
    if (cp >= 0x10000) {
      out.push_back(static_cast<char16_t>(0xD800 + ((cp - 0x10000) >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
  }
  return out;
}

std::string FromUtf16(const std::u16string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char32_t cp = s[i];
    if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < s.size() && s[i + 1] >= 0xDC00 &&
        s[i + 1] < 0xE000) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (s[i + 1] - 0xDC00);
      ++i;
    }
    AppendUtf8(out, cp);
  }
  return out;
}

enum class CaseMode { kUpper, kLower, kTitleFirst };

// Full Unicode case mapping of the root locale (what Python's str methods do).
std::string CaseMap(std::string_view s, CaseMode mode) {
  if (IsAscii(s) && mode != CaseMode::kTitleFirst) {
    std::string out(s);
    for (char& c : out) {
      c = static_cast<char>(mode == CaseMode::kUpper ? std::toupper(static_cast<unsigned char>(c))
                                                     : std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
  }
  const std::u16string in = ToUtf16(s);
  std::u16string out(in.size() * 3 + 4, u'\0');
  UErrorCode status = U_ZERO_ERROR;
  const auto* src = reinterpret_cast<const UChar*>(in.data());
  auto* dst = reinterpret_cast<UChar*>(out.data());
  const auto cap = static_cast<int32_t>(out.size());
  const auto len = static_cast<int32_t>(in.size());
  int32_t n = 0;
  switch (mode) {
    case CaseMode::kUpper:
      n = u_strToUpper(dst, cap, src, len, "", &status);
      break;
    case CaseMode::kLower:
      n = u_strToLower(dst, cap, src, len, "", &status);
      break;
    case CaseMode::kTitleFirst:
      // One code point in: title-case it without touching anything else.
      n = u_strToTitle(dst, cap, src, len, nullptr, "", &status);
      break;
  }
  if (U_FAILURE(status)) return std::string(s);
  out.resize(static_cast<size_t>(n));
  return FromUtf16(out);
}

bool IsCased(char32_t cp) { return u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_CASED); }

bool ContainsCp(const std::vector<char32_t>& set, char32_t cp) {
  return std::find(set.begin(), set.end(), cp) != set.end();
}

std::vector<char32_t> CodePoints(std::string_view s) {
  std::vector<char32_t> out;
  for (size_t pos = 0; pos < s.size();) out.push_back(NextCodePoint(s, pos));
  return out;
}

template <typename Pred>
bool AllCodePoints(std::string_view s, Pred pred) {
  if (s.empty()) return false;
  for (size_t pos = 0; pos < s.size();) {
    if (!pred(NextCodePoint(s, pos))) return false;
  }
  return true;
}

bool IsDigitCp(char32_t cp) {
  const int type = u_getIntPropertyValue(static_cast<UChar32>(cp), UCHAR_NUMERIC_TYPE);
  return type == U_NT_DECIMAL || type == U_NT_DIGIT;
}

}  // namespace

char32_t NextCodePoint(std::string_view s, size_t& pos) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  size_t extra = 0;
  char32_t value = 0;
  if (b0 >= 0xC2 && b0 < 0xE0) {
    extra = 1;
    value = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 < 0xF0) {
    extra = 2;
    value = b0 & 0x0F;
  } else if (b0 >= 0xF0 && b0 < 0xF5) {
    extra = 3;
    value = b0 & 0x07;
  }
  if (extra == 0 || s.size() - pos <= extra) {
    ++pos;
    return b0;
  }
  for (size_t i = 1; i <= extra; ++i) {
    const auto b = static_cast<unsigned char>(s[pos + i]);
    if ((b & 0xC0) != 0x80) {
      ++pos;
      return b0;
    }
    value = (value << 6) | (b & 0x3F);
  }
  const bool overlong = (extra == 2 && value < 0x800) || (extra == 3 && value < 0x10000);
  if (overlong || value > 0x10FFFF || (value >= 0xD800 && value < 0xE000)) {
    ++pos;
    return b0;
  }
  pos += extra + 1;
  return value;
}

void AppendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::vector<size_t> CodePointOffsets(std::string_view s) {
  std::vector<size_t> offsets;
  offsets.reserve(s.size() + 1);
  for (size_t pos = 0; pos < s.size();) {
    offsets.push_back(pos);
    NextCodePoint(s, pos);
  }
  offsets.push_back(s.size());
  return offsets;
}

size_t CodePointCount(std::string_view s) {
  if (IsAscii(s)) return s.size();
  size_t n = 0;
  for (size_t pos = 0; pos < s.size(); ++n) NextCodePoint(s, pos);
  return n;
}

bool IsPySpace(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 ||
         cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
         cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool IsPyPrintable(char32_t cp) {
  if (cp == ' ') return true;
  switch (u_charType(static_cast<UChar32>(cp))) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_SURROGATE:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
    case U_SPACE_SEPARATOR:
      return false;
    default:
      return true;
  }
}

std::vector<int64_t> SliceIndices(int64_t length, std::optional<int64_t> start,
                                  std::optional<int64_t> stop, std::optional<int64_t> step) {
  const int64_t st = step.value_or(1);
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v;
    if (x < 0) {
      x += length;
      if (x < 0) x = st < 0 ? -1 : 0;
    } else if (x >= length) {
      x = st < 0 ? length - 1 : length;
    }
    return x;
  };
  const int64_t lo = clamp(start, st < 0 ? length - 1 : 0);
  const int64_t hi = clamp(stop, st < 0 ? -1 : length);
  std::vector<int64_t> out;
  if (st > 0) {
    for (int64_t i = lo; i < hi; i += st) out.push_back(i);
  } else {
    for (int64_t i = lo; i > hi; i += st) out.push_back(i);
  }
  return out;
}

std::string PyStrip(std::string_view s, const std::optional<std::string>& chars, bool left,
                    bool right) {
  const std::vector<char32_t> set = chars ? CodePoints(*chars) : std::vector<char32_t>{};
  auto strip_cp = [&](char32_t cp) { return chars ? ContainsCp(set, cp) : IsPySpace(cp); };
  const std::vector<size_t> off = CodePointOffsets(s);
  size_t first = 0;
  size_t last = off.size() - 1;  // code point count
  auto cp_at = [&](size_t i) {
    size_t p = off[i];
    return NextCodePoint(s, p);
  };
  if (left) {
    while (first < last && strip_cp(cp_at(first))) ++first;
  }
  if (right) {
    while (last > first && strip_cp(cp_at(last - 1))) --last;
  }
  return std::string(s.substr(off[first], off[last] - off[first]));
}

std::vector<std::string> PySplit(std::string_view s, const std::optional<std::string>& sep,
                                 int64_t maxsplit, bool from_right) {
  std::vector<std::string> parts;
  if (sep) {
    if (maxsplit < 0) maxsplit = INT64_MAX;
    if (!from_right) {
      size_t pos = 0;
      while (maxsplit-- > 0) {
        const size_t hit = s.find(*sep, pos);
        if (hit == std::string_view::npos) break;
        parts.emplace_back(s.substr(pos, hit - pos));
        pos = hit + sep->size();
      }
      parts.emplace_back(s.substr(pos));
    } else {
      size_t end = s.size();
      while (maxsplit-- > 0 && end >= sep->size()) {
        const size_t hit = s.rfind(*sep, end - sep->size());
        if (hit == std::string_view::npos) break;
        parts.emplace_back(s.substr(hit + sep->size(), end - hit - sep->size()));
        end = hit;
      }
      parts.emplace_back(s.substr(0, end));
      std::reverse(parts.begin(), parts.end());
    }
    return parts;
  }
  // Runs of whitespace: no empty parts; the unsplit rest loses the
  // whitespace at its split side only, as in CPython's split_whitespace.
  const std::vector<size_t> off = CodePointOffsets(s);
  const size_t n = off.size() - 1;
  auto space = [&](size_t i) {
    size_t p = off[i];
    return IsPySpace(NextCodePoint(s, p));
  };
  auto sub = [&](size_t a, size_t b) { return std::string(s.substr(off[a], off[b] - off[a])); };
  if (maxsplit < 0) maxsplit = INT64_MAX;
  if (!from_right) {
    size_t i = 0;
    while (maxsplit-- > 0) {
      while (i < n && space(i)) ++i;
      if (i == n) break;
      const size_t j = i;
      while (i < n && !space(i)) ++i;
      parts.push_back(sub(j, i));
    }
    while (i < n && space(i)) ++i;
    if (i < n) parts.push_back(sub(i, n));
  } else {
    size_t i = n;
    while (maxsplit-- > 0) {
      while (i > 0 && space(i - 1)) --i;
      if (i == 0) break;
      const size_t j = i;
      while (i > 0 && !space(i - 1)) --i;
      parts.push_back(sub(i, j));
    }
    while (i > 0 && space(i - 1)) --i;
    if (i > 0) parts.push_back(sub(0, i));
    std::reverse(parts.begin(), parts.end());
  }
  return parts;
}

std::vector<std::string> PySplitLines(std::string_view s) {
  std::vector<std::string> lines;
  size_t start = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t here = pos;
    const char32_t cp = NextCodePoint(s, pos);
    const bool newline = cp == '\n' || cp == '\r' || cp == 0x0B || cp == 0x0C || cp == 0x1C ||
                         cp == 0x1D || cp == 0x1E || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
    if (!newline) continue;
    lines.emplace_back(s.substr(start, here - start));
    if (cp == '\r' && pos < s.size() && s[pos] == '\n') ++pos;
    start = pos;
  }
  if (start < s.size()) lines.emplace_back(s.substr(start));
  return lines;
}

std::string PyUpper(std::string_view s) { return CaseMap(s, CaseMode::kUpper); }
std::string PyLower(std::string_view s) { return CaseMap(s, CaseMode::kLower); }

std::string PyCapitalize(std::string_view s) {
  if (s.empty()) return {};
  size_t pos = 0;
  NextCodePoint(s, pos);
  return CaseMap(s.substr(0, pos), CaseMode::kTitleFirst) + PyLower(s.substr(pos));
}

std::string PyTitle(std::string_view s) {
  std::string out;
  bool previous_cased = false;
  for (size_t pos = 0; pos < s.size();) {
    const size_t here = pos;
    const char32_t cp = NextCodePoint(s, pos);
    const std::string_view one = s.substr(here, pos - here);
    out += previous_cased ? PyLower(one) : CaseMap(one, CaseMode::kTitleFirst);
    previous_cased = IsCased(cp);
  }
  return out;
}

bool PyIsUpper(std::string_view s) {
  bool cased = false;
  for (size_t pos = 0; pos < s.size();) {
    const auto cp = static_cast<UChar32>(NextCodePoint(s, pos));
    if (u_isULowercase(cp) || u_istitle(cp)) return false;
    if (u_isUUppercase(cp)) cased = true;
  }
  return cased;
}

bool PyIsLower(std::string_view s) {
  bool cased = false;
  for (size_t pos = 0; pos < s.size();) {
    const auto cp = static_cast<UChar32>(NextCodePoint(s, pos));
    if (u_isUUppercase(cp) || u_istitle(cp)) return false;
    if (u_isULowercase(cp)) cased = true;
  }
  return cased;
}

bool PyIsDigit(std::string_view s) { return AllCodePoints(s, IsDigitCp); }
bool PyIsAlpha(std::string_view s) {
  return AllCodePoints(s, [](char32_t cp) { return u_isalpha(static_cast<UChar32>(cp)) != 0; });
}
bool PyIsAlnum(std::string_view s) {
  return AllCodePoints(s, [](char32_t cp) {
    return u_isalpha(static_cast<UChar32>(cp)) ||
           u_getIntPropertyValue(static_cast<UChar32>(cp), UCHAR_NUMERIC_TYPE) != U_NT_NONE;
  });
}
bool PyIsSpace(std::string_view s) { return AllCodePoints(s, IsPySpace); }

std::string PyReplace(std::string_view s, std::string_view old, std::string_view replacement,
                      int64_t count) {
  std::string out;
  if (count < 0) count = INT64_MAX;
  if (old.empty()) {
    // Python inserts the replacement before every code point and at the end.
    size_t pos = 0;
    while (pos < s.size()) {
      if (count > 0) {
        out.append(replacement);
        --count;
      }
      const size_t here = pos;
      NextCodePoint(s, pos);
      out.append(s.substr(here, pos - here));
    }
    if (count > 0) out.append(replacement);
    return out;
  }
  size_t pos = 0;
  while (count > 0) {
    const size_t hit = s.find(old, pos);
    if (hit == std::string_view::npos) break;
    out.append(s.substr(pos, hit - pos)).append(replacement);
    pos = hit + old.size();
    --count;
  }
  out.append(s.substr(pos));
  return out;
}

int64_t PyFind(std::string_view s, std::string_view sub, bool from_right) {
  const size_t hit = from_right ? s.rfind(sub) : s.find(sub);
  if (hit == std::string_view::npos) return -1;
  return static_cast<int64_t>(CodePointCount(s.substr(0, hit)));
}

int64_t PyCount(std::string_view s, std::string_view sub) {
  if (sub.empty()) return static_cast<int64_t>(CodePointCount(s)) + 1;
  int64_t n = 0;
  for (size_t pos = s.find(sub); pos != std::string_view::npos;
       pos = s.find(sub, pos + sub.size())) {
    ++n;
  }
  return n;
}

}  // namespace orcd::jinja
