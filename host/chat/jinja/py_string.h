// Python str semantics over UTF-8: code-point lengths, indexing and slicing,
// whitespace as str.isspace() sees it, strip/split, case mapping (ICU).
#ifndef ORCD_HOST_CHAT_JINJA_PY_STRING_H_
#define ORCD_HOST_CHAT_JINJA_PY_STRING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orcd::jinja {

// Decodes the code point at pos and advances pos. A byte that does not start
// valid UTF-8 decodes as itself (0x80..0xFF), so no input is refused.
char32_t NextCodePoint(std::string_view s, size_t& pos);
void AppendUtf8(std::string& out, char32_t cp);
// Byte offset of every code point, plus s.size() at the end.
std::vector<size_t> CodePointOffsets(std::string_view s);
size_t CodePointCount(std::string_view s);

// str.isspace() for one code point (also what re's \s matches).
bool IsPySpace(char32_t cp);
// str.isprintable() for one code point (repr escapes the others).
bool IsPyPrintable(char32_t cp);

// Python's slice.indices(): the positions a[start:stop:step] visits.
// step must not be 0.
std::vector<int64_t> SliceIndices(int64_t length, std::optional<int64_t> start,
                                  std::optional<int64_t> stop, std::optional<int64_t> step);

// str.strip / lstrip / rstrip; chars nullopt strips whitespace.
std::string PyStrip(std::string_view s, const std::optional<std::string>& chars, bool left,
                    bool right);
// str.split(sep, maxsplit) (sep nullopt: runs of whitespace); rsplit when from_right.
std::vector<std::string> PySplit(std::string_view s, const std::optional<std::string>& sep,
                                 int64_t maxsplit, bool from_right);
// str.splitlines() (keepends false).
std::vector<std::string> PySplitLines(std::string_view s);

std::string PyUpper(std::string_view s);
std::string PyLower(std::string_view s);
// str.capitalize(): first code point title-cased, the rest lower-cased.
std::string PyCapitalize(std::string_view s);
// str.title().
std::string PyTitle(std::string_view s);
// str.isupper() / str.islower(): at least one cased character, none of the other case.
bool PyIsUpper(std::string_view s);
bool PyIsLower(std::string_view s);
// str.isdigit / isalpha / isalnum / isspace (all code points, non-empty).
bool PyIsDigit(std::string_view s);
bool PyIsAlpha(std::string_view s);
bool PyIsAlnum(std::string_view s);
bool PyIsSpace(std::string_view s);

// str.replace(old, new, count) (count < 0: all).
std::string PyReplace(std::string_view s, std::string_view old, std::string_view replacement,
                      int64_t count);
// str.find / rfind in code points; -1 when absent.
int64_t PyFind(std::string_view s, std::string_view sub, bool from_right);
// str.count(sub).
int64_t PyCount(std::string_view s, std::string_view sub);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_PY_STRING_H_
