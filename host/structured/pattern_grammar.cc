#include "host/structured/pattern_grammar.h"

#include <bitset>
#include <cstdio>
#include <string>
#include <vector>

#include "host/common/status.h"

namespace orcd::structured {
namespace {

using Sequence = GrammarBuilder::Sequence;
using Symbol = GrammarBuilder::Symbol;

[[noreturn]] void Refuse(const std::string& pattern, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument, "JSON schema keyword 'pattern' \"" +
                                               pattern.substr(0, 80) + "\": " + why +
                                               " is not supported (see README: Structured output)");
}

int FirstOf(const std::bitset<128>& set) {
  for (int c = 0; c < 128; ++c)
    if (set.test(static_cast<size_t>(c))) return c;
  return 0;
}

struct Piece {
  Sequence sequence;
  bool nullable = false;
};

class PatternCompiler {
 public:
  PatternCompiler(GrammarBuilder& b, JsonGrammarPieces& pieces, const std::string& pattern)
      : b_(b), pieces_(pieces), p_(pattern) {}

  Symbol Compile() {
    size_t end = p_.size();
    const bool anchored_start = !p_.empty() && p_[0] == '^';
    at_ = anchored_start ? 1 : 0;
    bool anchored_end = false;
    if (end > at_ && p_[end - 1] == '$') {
      size_t backslashes = 0;
      for (size_t i = end - 1; i > at_ && p_[i - 1] == '\\'; --i) ++backslashes;
      anchored_end = backslashes % 2 == 0;
    }
    end_ = anchored_end ? end - 1 : end;
    const Piece body = Alternation();
    if (at_ != end_) Refuse(p_, "an unmatched ')'");
    Sequence inside;
    if (!anchored_start) inside.push_back(b_.Star({pieces_.StringChar()}));
    Append(inside, body.sequence);
    if (!anchored_end) inside.push_back(b_.Star({pieces_.StringChar()}));
    return GrammarBuilder::Ref(b_.AddRule({inside}));
  }

 private:
  bool More() const { return at_ < end_; }
  char Peek() const { return p_[at_]; }

  Piece Alternation() {
    std::vector<Sequence> alternatives;
    bool nullable = false;
    while (true) {
      Piece s = Concatenation();
      nullable = nullable || s.nullable;
      alternatives.push_back(std::move(s.sequence));
      if (!More() || Peek() != '|') break;
      ++at_;
    }
    if (alternatives.size() == 1) return {std::move(alternatives[0]), nullable};
    return {{GrammarBuilder::Ref(b_.AddRule(alternatives))}, nullable};
  }

  Piece Concatenation() {
    Piece out{{}, true};
    while (More() && Peek() != '|' && Peek() != ')') {
      Piece q = Quantified();
      Append(out.sequence, q.sequence);
      out.nullable = out.nullable && q.nullable;
    }
    return out;
  }

  Piece Quantified() {
    Piece atom = Atom();
    if (!More()) return atom;
    int64_t min = -1, max = -1;
    const char c = Peek();
    if (c == '*' || c == '+' || c == '?') {
      ++at_;
      min = c == '+' ? 1 : 0;
      max = c == '?' ? 1 : -1;
    } else if (c == '{') {
      const size_t close = p_.find('}', at_);
      if (close == std::string::npos || close > end_) Refuse(p_, "a '{' that is not a quantifier");
      const std::string body = p_.substr(at_ + 1, close - at_ - 1);
      const size_t comma = body.find(',');
      const auto number = [&](const std::string& s) -> int64_t {
        if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos)
          Refuse(p_, "the quantifier {" + body + "}");
        return std::stoll(s);
      };
      min = number(body.substr(0, comma));
      max = comma == std::string::npos ? min
            : comma + 1 == body.size() ? -1
                                       : number(body.substr(comma + 1));
      if (max >= 0 && (max < min || max > 10000)) Refuse(p_, "the quantifier {" + body + "}");
      at_ = close + 1;
    } else {
      return atom;
    }
    if (More() && Peek() == '?') ++at_;  // lazy: the same strings
    if (atom.nullable && (max < 0 || max > 1)) Refuse(p_, "repeating what can match nothing");
    return {{b_.Repeat(atom.sequence, min, max)}, atom.nullable || min == 0};
  }

  Piece Atom() {
    const char c = Peek();
    if (c == '(') {
      ++at_;
      if (p_.compare(at_, 2, "?:") == 0) {
        at_ += 2;
      } else if (More() && Peek() == '?') {
        Refuse(p_, "lookaround and named groups");
      }
      Piece inner = Alternation();
      if (!More() || Peek() != ')') Refuse(p_, "an unclosed '('");
      ++at_;
      return {{GrammarBuilder::Ref(b_.AddRule({inner.sequence}))}, inner.nullable};
    }
    if (c == '[') return {{Class()}, false};
    if (c == '.') {
      ++at_;
      std::bitset<128> newline;
      newline.set('\n');
      newline.set('\r');
      return {{CharSet(newline, true)}, false};
    }
    if (c == '\\') {
      ++at_;
      std::bitset<128> set;
      bool negated = false;
      if (Escape(set, negated)) return {{CharSet(set, negated)}, false};
      return {Encoded(static_cast<char>(FirstOf(set))), false};
    }
    if (c == '^' || c == '$') Refuse(p_, "an anchor inside the pattern");
    if (c == '*' || c == '+' || c == '?' || c == '{' || c == '}' || c == ']')
      Refuse(p_, std::string("a bare '") + c + "'");
    return {Literal(), false};
  }

  // One code point of the pattern, UTF-8, as output bytes.
  Sequence Literal() {
    const auto lead = static_cast<uint8_t>(p_[at_]);
    const size_t n = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    if (n == 1) return Encoded(p_[at_++]);
    Sequence s;
    for (size_t i = 0; i < n && at_ < end_; ++i)
      s.push_back(b_.Byte(static_cast<uint8_t>(p_[at_++])));
    return s;
  }

  // An escape after '\': a class (\d \w \s and their negations: true) or one
  // ASCII character (set holds it alone).
  bool Escape(std::bitset<128>& set, bool& negated) {
    if (!More()) Refuse(p_, "a trailing '\\'");
    const char e = p_[at_++];
    const auto range = [&set](char lo, char hi) {
      for (int c = lo; c <= hi; ++c) set.set(static_cast<size_t>(c));
    };
    switch (e) {
      case 'd':
      case 'D':
        range('0', '9');
        negated = e == 'D';
        return true;
      case 'w':
      case 'W':
        range('a', 'z'), range('A', 'Z'), range('0', '9'), set.set('_');
        negated = e == 'W';
        return true;
      case 's':
      case 'S':
        for (const char w : std::string(" \t\n\r\f\v")) set.set(static_cast<size_t>(w));
        negated = e == 'S';
        return true;
      case 'n':
        set.set('\n');
        return false;
      case 't':
        set.set('\t');
        return false;
      case 'r':
        set.set('\r');
        return false;
      case 'f':
        set.set('\f');
        return false;
      case 'v':
        set.set('\v');
        return false;
      default:
        if (std::string("\\/.-^$*+?()[]{}|\"").find(e) == std::string::npos)
          Refuse(p_, std::string("the escape \\") + e);
        set.set(static_cast<size_t>(e));
        return false;
    }
  }

  Symbol Class() {
    ++at_;  // '['
    bool negated = false;
    if (More() && Peek() == '^') {
      negated = true;
      ++at_;
    }
    std::bitset<128> set;
    bool first = true;
    while (More() && (Peek() != ']' || first)) {
      first = false;
      int lo;
      if (Peek() == '\\') {
        ++at_;
        std::bitset<128> one;
        bool one_negated = false;
        if (Escape(one, one_negated)) {
          if (one_negated) Refuse(p_, "a negated escape inside a class");
          set |= one;
          continue;
        }
        lo = FirstOf(one);
      } else {
        if (static_cast<uint8_t>(Peek()) >= 0x80) Refuse(p_, "a non-ASCII character in a class");
        lo = Peek();
        ++at_;
      }
      int hi = lo;
      if (at_ + 1 < end_ && Peek() == '-' && p_[at_ + 1] != ']') {
        ++at_;
        if (Peek() == '\\' || static_cast<uint8_t>(Peek()) >= 0x80)
          Refuse(p_, "a class range of that kind");
        hi = Peek();
        ++at_;
        if (hi < lo) Refuse(p_, "a reversed class range");
      }
      for (int c = lo; c <= hi; ++c) set.set(static_cast<size_t>(c));
    }
    if (!More()) Refuse(p_, "an unclosed '['");
    ++at_;  // ']'
    return CharSet(set, negated);
  }

  // A character as JSON writes it inside a string (orcd's JsonEscape).
  Sequence Encoded(char c) {
    switch (c) {
      case '"':
        return b_.Literal("\\\"");
      case '\\':
        return b_.Literal("\\\\");
      case '\n':
        return b_.Literal("\\n");
      case '\r':
        return b_.Literal("\\r");
      case '\t':
        return b_.Literal("\\t");
      default:
        if (static_cast<uint8_t>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          return b_.Literal(buf);
        }
        return {b_.Byte(static_cast<uint8_t>(c))};
    }
  }

  // The ASCII characters of `set` (or every character outside it, non-ASCII
  // ones included, when negated), one JSON string character each.
  Symbol CharSet(const std::bitset<128>& set, bool negated) {
    std::bitset<128> chars = negated ? ~set : set;
    ByteSet plain;
    std::vector<Sequence> alternatives;
    for (int c = 0; c < 128; ++c) {
      if (!chars.test(static_cast<size_t>(c))) continue;
      if (c >= 0x20 && c != '"' && c != '\\') {
        plain.set(static_cast<size_t>(c));
      } else {
        alternatives.push_back(Encoded(static_cast<char>(c)));
      }
    }
    if (plain.any()) alternatives.push_back({b_.Bytes(plain)});
    if (negated) alternatives.push_back({pieces_.NonAsciiChar()});  // every non-ASCII character
    if (alternatives.empty()) Refuse(p_, "a class that matches nothing");
    return GrammarBuilder::Ref(b_.AddRule(alternatives));
  }

  GrammarBuilder& b_;
  JsonGrammarPieces& pieces_;
  const std::string& p_;
  size_t at_ = 0, end_ = 0;
};

}  // namespace

GrammarBuilder::Symbol AddPattern(GrammarBuilder& b, JsonGrammarPieces& pieces,
                                  const std::string& pattern) {
  return PatternCompiler(b, pieces, pattern).Compile();
}

}  // namespace orcd::structured
