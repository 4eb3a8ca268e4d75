#include "host/chat/jinja/lexer.h"

#include <charconv>
#include <cstdlib>

#include "host/chat/jinja/py_string.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }

int CountNewlines(std::string_view s) {
  int n = 0;
  for (const char c : s) n += c == '\n' ? 1 : 0;
  return n;
}

// \r\n and \r become \n; one trailing newline goes (keep_trailing_newline=False).
std::string Normalize(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      out += source[i];
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

bool AllSpace(std::string_view s) {
  if (s.empty()) return false;
  for (size_t pos = 0; pos < s.size();) {
    if (!IsPySpace(NextCodePoint(s, pos))) return false;
  }
  return true;
}

std::string RStrip(std::string_view s) { return PyStrip(s, std::nullopt, false, true); }

// Python's "unicode-escape" decoding of a string literal's body.
std::string Unescape(std::string_view body, int line) {
  std::string out;
  out.reserve(body.size());
  auto hex = [&](size_t at, size_t count) -> char32_t {
    if (at + count > body.size()) throw TemplateError(ErrorKind::kSyntax, "truncated escape", line);
    char32_t v = 0;
    for (size_t k = 0; k < count; ++k) {
      const char c = body[at + k];
      int d = -1;
      if (IsDigit(c)) d = c - '0';
      if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      if (d < 0) throw TemplateError(ErrorKind::kSyntax, "truncated escape", line);
      v = v * 16 + static_cast<char32_t>(d);
    }
    return v;
  };
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 >= body.size()) {
      out += body[i];
      continue;
    }
    const char c = body[++i];
    switch (c) {
      case '\n':
        break;  // line continuation
      case '\\':
      case '\'':
      case '"':
        out += c;
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case 'x':
        AppendUtf8(out, hex(i + 1, 2));
        i += 2;
        break;
      case 'u':
        AppendUtf8(out, hex(i + 1, 4));
        i += 4;
        break;
      case 'U': {
        const char32_t cp = hex(i + 1, 8);
        if (cp > 0x10FFFF)
          throw TemplateError(ErrorKind::kSyntax, "illegal Unicode character", line);
        AppendUtf8(out, cp);
        i += 8;
        break;
      }
      case 'N':
        throw TemplateError(ErrorKind::kUnsupported, "\\N{...} escapes are not supported", line);
      default:
        if (c >= '0' && c <= '7') {
          char32_t v = 0;
          size_t k = 0;
          for (; k < 3 && i + k < body.size() && body[i + k] >= '0' && body[i + k] <= '7'; ++k) {
            v = v * 8 + static_cast<char32_t>(body[i + k] - '0');
          }
          i += k - 1;
          AppendUtf8(out, v);
        } else {
          out += '\\';
          out += c;
        }
    }
  }
  return out;
}

class Lexer {
 public:
  explicit Lexer(std::string_view source) : src_(Normalize(source)) {}

  std::vector<Token> Run() {
    while (pos_ < src_.size()) Root();
    Push(TokenType::kEof, "");
    return std::move(out_);
  }

 private:
  [[noreturn]] void Fail(const std::string& message) const {
    throw TemplateError(ErrorKind::kSyntax, message, line_);
  }

  bool At(size_t p, std::string_view s) const { return src_.compare(p, s.size(), s) == 0; }

  size_t SkipSpace(size_t p) const {
    while (p < src_.size()) {
      size_t next = p;
      if (!IsPySpace(NextCodePoint(src_, next))) break;
      p = next;
    }
    return p;
  }

  Token& Push(TokenType type, std::string text) {
    Token t;
    t.type = type;
    t.text = std::move(text);
    t.line = line_;
    out_.push_back(std::move(t));
    return out_.back();
  }

  // Advances over src_[pos_, end): line count and line_starting follow.
  void Consume(size_t end) {
    line_ += CountNewlines(std::string_view(src_).substr(pos_, end - pos_));
    if (end > pos_) line_starting_ = src_[end - 1] == '\n';
    pos_ = end;
  }

  // Text before a tag, with "-" / lstrip_blocks applied.
  void EmitText(size_t end, char sign, bool lstrip_allowed) {
    std::string text = src_.substr(pos_, end - pos_);
    if (sign == '-') {
      text = RStrip(text);
    } else if (sign != '+' && lstrip_allowed) {
      const size_t l_pos = text.rfind('\n') + 1;  // npos + 1 == 0
      if ((l_pos > 0 || line_starting_) && AllSpace(std::string_view(text).substr(l_pos))) {
        text.resize(l_pos);
      }
    }
    if (!text.empty()) Push(TokenType::kData, std::move(text));
    Consume(end);
  }

  void Root() {
    size_t start = pos_;
    while (true) {
      start = src_.find('{', start);
      if (start == std::string::npos || start + 1 >= src_.size()) {
        Push(TokenType::kData, src_.substr(pos_));
        Consume(src_.size());
        return;
      }
      const char k = src_[start + 1];
      if (k == '{' || k == '%' || k == '#') break;
      ++start;
    }
    const char kind = src_[start + 1];
    size_t after = start + 2;
    char sign = 0;
    if (after < src_.size() && (src_[after] == '-' || src_[after] == '+')) sign = src_[after++];
    if (kind == '%') {
      size_t p = SkipSpace(after);
      if (At(p, "raw")) {
        p = SkipSpace(p + 3);
        size_t raw_end = 0;
        if (At(p, "-%}")) raw_end = SkipSpace(p + 3);
        if (At(p, "%}")) raw_end = p + 2;
        if (raw_end != 0) {
          EmitText(start, sign, true);
          Consume(raw_end);
          Raw();
          return;
        }
      }
    }
    EmitText(start, sign, kind != '{');
    Consume(after);
    if (kind == '#') {
      Comment();
      return;
    }
    Push(kind == '%' ? TokenType::kBlockBegin : TokenType::kVariableBegin, "");
    Tag(kind);
  }

  void Comment() {
    const size_t m = src_.find("#}", pos_);
    if (m == std::string::npos) Fail("Missing end of comment tag");
    const char sign = m > pos_ && (src_[m - 1] == '-' || src_[m - 1] == '+') ? src_[m - 1] : 0;
    size_t end = m + 2;
    if (sign == '-') end = SkipSpace(end);
    if (sign == 0 && end < src_.size() && src_[end] == '\n') ++end;
    Consume(end);
  }

  void Raw() {
    for (size_t k = src_.find("{%", pos_); k != std::string::npos; k = src_.find("{%", k + 1)) {
      size_t p = k + 2;
      const char sign = p < src_.size() && (src_[p] == '-' || src_[p] == '+') ? src_[p++] : 0;
      p = SkipSpace(p);
      if (!At(p, "endraw")) continue;
      p = SkipSpace(p + 6);
      size_t end = 0;
      if (At(p, "+%}")) end = p + 3;
      if (At(p, "-%}")) end = SkipSpace(p + 3);
      if (At(p, "%}")) end = p + 2 + (At(p + 2, "\n") ? 1 : 0);
      if (end == 0) continue;
      EmitText(k, sign, true);
      Consume(end);
      return;
    }
    Fail("Missing end of raw directive");
  }

  // Tokens of one {% ... %} or {{ ... }} up to and including its end marker.
  void Tag(char kind) {
    std::vector<char> balance;
    while (true) {
      if (pos_ >= src_.size()) Fail("unexpected end of template inside a tag");
      if (balance.empty() && TagEnd(kind)) return;
      const char c = src_[pos_];
      const size_t space_end = SkipSpace(pos_);
      if (space_end > pos_) {
        Consume(space_end);
        continue;
      }
      if (Number()) continue;
      if (IsNameStart(c)) {
        size_t e = pos_;
        while (e < src_.size() && IsNameChar(src_[e])) ++e;
        Push(TokenType::kName, src_.substr(pos_, e - pos_));
        Consume(e);
        continue;
      }
      if (c == '\'' || c == '"') {
        String(c);
        continue;
      }
      Operator(balance);
    }
  }

  bool TagEnd(char kind) {
    size_t end = 0;
    if (kind == '%') {
      if (At(pos_, "+%}")) end = pos_ + 3;
      if (At(pos_, "-%}")) end = SkipSpace(pos_ + 3);
      if (At(pos_, "%}")) end = pos_ + 2 + (At(pos_ + 2, "\n") ? 1 : 0);
    } else {
      if (At(pos_, "-}}")) end = SkipSpace(pos_ + 3);
      if (At(pos_, "}}")) end = pos_ + 2;
    }
    if (end == 0) return false;
    Push(kind == '%' ? TokenType::kBlockEnd : TokenType::kVariableEnd, "");
    Consume(end);
    return true;
  }

  // (\d+_)*\d+ from p; npos when p holds no digit.
  size_t Digits(size_t p) const {
    if (p >= src_.size() || !IsDigit(src_[p])) return std::string::npos;
    while (true) {
      while (p < src_.size() && IsDigit(src_[p])) ++p;
      if (p + 1 < src_.size() && src_[p] == '_' && IsDigit(src_[p + 1])) {
        ++p;
        continue;
      }
      return p;
    }
  }

  bool Number() {
    const size_t int_end = Digits(pos_);
    if (int_end == std::string::npos) return false;
    // A float unless preceded by '.' (foo.0.1 is two lookups).
    if (pos_ == 0 || src_[pos_ - 1] != '.') {
      size_t q = int_end;
      size_t frac_end = std::string::npos;
      if (q < src_.size() && src_[q] == '.') frac_end = Digits(q + 1);
      if (frac_end != std::string::npos) q = frac_end;
      size_t float_end = std::string::npos;
      if (q < src_.size() && (src_[q] == 'e' || src_[q] == 'E')) {
        size_t r = q + 1;
        if (r < src_.size() && (src_[r] == '+' || src_[r] == '-')) ++r;
        float_end = Digits(r);
      }
      if (float_end == std::string::npos) float_end = frac_end;
      if (float_end != std::string::npos) {
        std::string text;
        for (size_t i = pos_; i < float_end; ++i) {
          if (src_[i] != '_') text += src_[i];
        }
        Push(TokenType::kFloat, text).float_value = std::strtod(text.c_str(), nullptr);
        Consume(float_end);
        return true;
      }
    }
    int base = 10;
    size_t p = pos_;
    if (src_[p] == '0' && p + 1 < src_.size()) {
      const char b = static_cast<char>(src_[p + 1] | 0x20);
      base = b == 'b' ? 2 : b == 'o' ? 8 : b == 'x' ? 16 : 10;
    }
    std::string digits;
    if (base != 10) {
      p += 2;
      auto ok = [&](char c) {
        const char l = static_cast<char>(c | 0x20);
        return base == 16 ? (IsDigit(c) || (l >= 'a' && l <= 'f')) : (c >= '0' && c < '0' + base);
      };
      while (p < src_.size() &&
             (ok(src_[p]) || (src_[p] == '_' && p + 1 < src_.size() && ok(src_[p + 1])))) {
        if (src_[p] != '_') digits += src_[p];
        ++p;
      }
      if (digits.empty()) {
        base = 10;
        p = pos_;
      }
    }
    if (base == 10) {
      // [1-9](_?\d)* or 0(_?0)*
      p = pos_ + 1;
      digits = src_.substr(pos_, 1);
      const bool zero = src_[pos_] == '0';
      while (p < src_.size()) {
        const size_t d = src_[p] == '_' ? p + 1 : p;
        if (d >= src_.size() || !IsDigit(src_[d]) || (zero && src_[d] != '0')) break;
        digits += src_[d];
        p = d + 1;
      }
    }
    int64_t value = 0;
    const auto [ptr, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (ec != std::errc() || ptr != digits.data() + digits.size())
      Fail("integer literal too large");
    Push(TokenType::kInteger, src_.substr(pos_, p - pos_)).int_value = value;
    Consume(p);
    return true;
  }

  void String(char quote) {
    size_t p = pos_ + 1;
    while (p < src_.size() && src_[p] != quote) p += src_[p] == '\\' ? 2 : 1;
    if (p >= src_.size()) Fail("unexpected end of string");
    Push(TokenType::kString,
         Unescape(std::string_view(src_).substr(pos_ + 1, p - pos_ - 1), line_));
    Consume(p + 1);
  }

  void Operator(std::vector<char>& balance) {
    static constexpr std::string_view kTwo[] = {"//", "**", "==", "!=", ">=", "<="};
    for (const std::string_view op : kTwo) {
      if (At(pos_, op)) {
        Push(TokenType::kOperator, std::string(op));
        Consume(pos_ + 2);
        return;
      }
    }
    const char c = src_[pos_];
    if (std::string_view("+-/*%~[](){}><=.:|,;").find(c) == std::string_view::npos) {
      Fail(std::string("unexpected char '") + c + "'");
    }
    if (c == '(' || c == '[' || c == '{') balance.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
    if (c == ')' || c == ']' || c == '}') {
      if (balance.empty()) Fail(std::string("unexpected '") + c + "'");
      if (balance.back() != c)
        Fail(std::string("unexpected '") + c + "', expected '" + balance.back() + "'");
      balance.pop_back();
    }
    Push(TokenType::kOperator, std::string(1, c));
    Consume(pos_ + 1);
  }

  std::string src_;
  size_t pos_ = 0;
  int line_ = 1;
  bool line_starting_ = true;
  std::vector<Token> out_;
};

}  // namespace

std::vector<Token> Tokenize(std::string_view source) { return Lexer(source).Run(); }

}  // namespace orcd::jinja
