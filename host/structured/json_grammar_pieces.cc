#include "host/structured/json_grammar_pieces.h"

#include <string>
#include <vector>

#include "host/common/status.h"

namespace orcd::structured {

JsonGrammarPieces::Symbol JsonGrammarPieces::Lazy(std::optional<Symbol>& cached,
                                                  const std::vector<Sequence>& alternatives) {
  if (!cached) cached = GrammarBuilder::Ref(b_.AddRule(alternatives));
  return *cached;
}

JsonGrammarPieces::Symbol JsonGrammarPieces::Value() {
  if (value_) return *value_;
  // Declared first: objects and arrays hold values.
  value_rule_ = b_.Declare();
  value_ = GrammarBuilder::Ref(*value_rule_);
  b_.Define(*value_rule_, {{AnyObject()},
                           {AnyArray()},
                           {String()},
                           {Number()},
                           b_.Literal("true"),
                           b_.Literal("false"),
                           b_.Literal("null")});
  return *value_;
}

JsonGrammarPieces::Symbol JsonGrammarPieces::AnyObject() {
  if (object_) return *object_;
  const Symbol value = Value();
  if (object_) return *object_;
  const Sequence member = {String(), b_.Byte(':'), value};
  Sequence more = {b_.Byte(',')};
  Append(more, member);
  Sequence members = member;
  members.push_back(b_.Star(more));
  return Lazy(object_, {{b_.Byte('{'), b_.Optional(members), b_.Byte('}')}});
}

JsonGrammarPieces::Symbol JsonGrammarPieces::AnyArray() {
  if (array_) return *array_;
  const Symbol value = Value();
  if (array_) return *array_;
  const Sequence items = {value, b_.Star({b_.Byte(','), value})};
  return Lazy(array_, {{b_.Byte('['), b_.Optional(items), b_.Byte(']')}});
}

JsonGrammarPieces::Symbol JsonGrammarPieces::StringChar() {
  if (char_) return *char_;
  ByteSet plain;
  for (int c = 0x20; c <= 0x7F; ++c) plain.set(static_cast<size_t>(c));
  plain.reset('"');
  plain.reset('\\');
  ByteSet escaped;
  for (const char c : std::string("\"\\/bfnrt")) escaped.set(static_cast<uint8_t>(c));
  ByteSet hex;
  for (const char c : std::string("0123456789abcdefABCDEF")) hex.set(static_cast<uint8_t>(c));
  const Symbol h = b_.Bytes(hex);
  return Lazy(char_, {{b_.Bytes(plain)},
                      {NonAsciiChar()},
                      {b_.Byte('\\'), b_.Bytes(escaped)},
                      {b_.Byte('\\'), b_.Byte('u'), h, h, h, h}});
}

JsonGrammarPieces::Symbol JsonGrammarPieces::NonAsciiChar() {
  if (non_ascii_) return *non_ascii_;
  const Symbol cont = b_.Range(0x80, 0xBF);
  // Well-formed UTF-8 only (Unicode's table 3-7: no overlong forms, no
  // surrogates): a detokenizer would show anything else as U+FFFD, and the
  // text would no longer be what the grammar counted.
  return Lazy(non_ascii_, {{b_.Range(0xC2, 0xDF), cont},
                           {b_.Byte(0xE0), b_.Range(0xA0, 0xBF), cont},
                           {b_.Range(0xE1, 0xEC), cont, cont},
                           {b_.Byte(0xED), b_.Range(0x80, 0x9F), cont},
                           {b_.Range(0xEE, 0xEF), cont, cont},
                           {b_.Byte(0xF0), b_.Range(0x90, 0xBF), cont, cont},
                           {b_.Range(0xF1, 0xF3), cont, cont, cont},
                           {b_.Byte(0xF4), b_.Range(0x80, 0x8F), cont, cont}});
}

JsonGrammarPieces::Symbol JsonGrammarPieces::String() {
  if (string_) return *string_;
  const Symbol c = StringChar();
  return Lazy(string_, {{b_.Byte('"'), b_.Star({c}), b_.Byte('"')}});
}

JsonGrammarPieces::Symbol JsonGrammarPieces::Number() {
  if (number_) return *number_;
  const Symbol digits = b_.Star({Digit()});
  const Symbol integer =
      GrammarBuilder::Ref(b_.AddRule({{b_.Byte('0')}, {b_.Range('1', '9'), digits}}));
  const Symbol fraction = b_.Optional({b_.Byte('.'), Digit(), digits});
  ByteSet e;
  e.set('e');
  e.set('E');
  ByteSet sign;
  sign.set('+');
  sign.set('-');
  const Symbol exponent =
      b_.Optional({b_.Bytes(e), b_.Optional({b_.Bytes(sign)}), Digit(), digits});
  return Lazy(number_, {{b_.Optional({b_.Byte('-')}), integer, fraction, exponent}});
}

JsonGrammarPieces::Symbol JsonGrammarPieces::Boolean() {
  return Lazy(boolean_, {b_.Literal("true"), b_.Literal("false")});
}

JsonGrammarPieces::Symbol JsonGrammarPieces::Null() { return Lazy(null_, {b_.Literal("null")}); }

namespace {

int Digits(uint64_t v) {
  int d = 1;
  while (v >= 10) {
    v /= 10;
    ++d;
  }
  return d;
}

uint64_t Pow10(int d) {
  uint64_t p = 1;
  for (int i = 0; i < d; ++i) p *= 10;
  return p;
}

bool All(const std::string& s, size_t from, char c) {
  return s.find_first_not_of(c, from) == std::string::npos;
}

}  // namespace

void JsonGrammarPieces::DigitRange(const std::string& a, const std::string& b, Sequence prefix,
                                   std::vector<Sequence>& out) {
  if (a.empty()) {
    out.push_back(std::move(prefix));
    return;
  }
  const auto a0 = static_cast<uint8_t>(a[0]), b0 = static_cast<uint8_t>(b[0]);
  const size_t tail = a.size() - 1;
  const auto any_digits = [&](Sequence s) {
    for (size_t i = 0; i < tail; ++i) s.push_back(Digit());
    return s;
  };
  if (a0 == b0) {
    prefix.push_back(b_.Byte(a0));
    DigitRange(a.substr(1), b.substr(1), std::move(prefix), out);
    return;
  }
  uint8_t full_lo = a0, full_hi = b0;
  if (!All(a, 1, '0')) {
    Sequence low = prefix;
    low.push_back(b_.Byte(a0));
    DigitRange(a.substr(1), std::string(tail, '9'), std::move(low), out);
    full_lo = a0 + 1;
  }
  if (!All(b, 1, '9')) {
    Sequence high = prefix;
    high.push_back(b_.Byte(b0));
    DigitRange(std::string(tail, '0'), b.substr(1), std::move(high), out);
    full_hi = b0 - 1;
  }
  if (full_lo <= full_hi) {
    Sequence middle = prefix;
    middle.push_back(b_.Range(full_lo, full_hi));
    out.push_back(any_digits(std::move(middle)));
  }
}

std::vector<GrammarBuilder::Sequence> JsonGrammarPieces::Magnitudes(int64_t lo, int64_t hi) {
  std::vector<Sequence> out;
  const auto ulo = static_cast<uint64_t>(lo);
  if (hi < 0) {  // [lo, inf): lo's length up to its last value, then every longer number
    const int d = Digits(ulo);
    DigitRange(std::to_string(ulo), std::to_string(Pow10(d) - 1), {}, out);
    Sequence longer = {b_.Range('1', '9')};
    for (int i = 0; i < d; ++i) longer.push_back(Digit());
    longer.push_back(b_.Star({Digit()}));
    out.push_back(std::move(longer));
    return out;
  }
  const auto uhi = static_cast<uint64_t>(hi);
  for (int d = Digits(ulo); d <= Digits(uhi); ++d) {
    const uint64_t a = d == Digits(ulo) ? ulo : Pow10(d - 1);
    const uint64_t b = d == Digits(uhi) ? uhi : Pow10(d) - 1;
    DigitRange(std::to_string(a), std::to_string(b), {}, out);
  }
  return out;
}

JsonGrammarPieces::Symbol JsonGrammarPieces::IntegerRange(std::optional<int64_t> lo,
                                                          std::optional<int64_t> hi) {
  std::vector<Sequence> alternatives;
  if (!lo || *lo < 0) {  // negatives: '-' and a magnitude
    const int64_t mag_lo = hi && *hi < 0 ? -*hi : 1;
    const int64_t mag_hi = lo ? -*lo : -1;
    for (Sequence s : Magnitudes(mag_lo, mag_hi)) {
      s.insert(s.begin(), b_.Byte('-'));
      alternatives.push_back(std::move(s));
    }
  }
  if (!hi || *hi >= 0) {
    for (Sequence s : Magnitudes(lo ? std::max<int64_t>(*lo, 0) : 0, hi ? *hi : -1))
      alternatives.push_back(std::move(s));
  }
  return GrammarBuilder::Ref(b_.AddRule(alternatives));
}

JsonGrammarPieces::Symbol JsonGrammarPieces::Format(const std::string& name) {
  ByteSet hex_set;
  for (const char c : std::string("0123456789abcdefABCDEF")) hex_set.set(static_cast<uint8_t>(c));
  const Symbol hex = b_.Bytes(hex_set);
  const auto two = [&](Symbol first, Symbol second) { return Sequence{first, second}; };
  const Sequence date = [&] {
    const Symbol month = GrammarBuilder::Ref(
        b_.AddRule({two(b_.Byte('0'), b_.Range('1', '9')), two(b_.Byte('1'), b_.Range('0', '2'))}));
    const Symbol day = GrammarBuilder::Ref(
        b_.AddRule({two(b_.Byte('0'), b_.Range('1', '9')), two(b_.Range('1', '2'), Digit()),
                    two(b_.Byte('3'), b_.Range('0', '1'))}));
    return Sequence{Digit(), Digit(), Digit(), Digit(), b_.Byte('-'), month, b_.Byte('-'), day};
  }();
  const auto time = [&] {
    const Symbol hour = GrammarBuilder::Ref(
        b_.AddRule({two(b_.Range('0', '1'), Digit()), two(b_.Byte('2'), b_.Range('0', '3'))}));
    const Symbol minute = GrammarBuilder::Ref(b_.AddRule({two(b_.Range('0', '5'), Digit())}));
    ByteSet sign;
    sign.set('+');
    sign.set('-');
    const Symbol zone = GrammarBuilder::Ref(
        b_.AddRule({{b_.Byte('Z')}, {b_.Bytes(sign), hour, b_.Byte(':'), minute}}));
    return Sequence{hour,   b_.Byte(':'),
                    minute, b_.Byte(':'),
                    minute, b_.Optional({b_.Byte('.'), Digit(), b_.Star({Digit()})}),
                    zone};
  };
  Sequence inside;
  if (name == "date") {
    inside = date;
  } else if (name == "time") {
    inside = time();
  } else if (name == "date-time") {
    inside = date;
    inside.push_back(b_.Byte('T'));
    Append(inside, time());
  } else if (name == "uuid") {
    for (const int n : {8, 4, 4, 4, 12}) {
      if (!inside.empty()) inside.push_back(b_.Byte('-'));
      for (int i = 0; i < n; ++i) inside.push_back(hex);
    }
  } else if (name == "email") {
    ByteSet atext;
    for (int c = 'a'; c <= 'z'; ++c) atext.set(static_cast<size_t>(c));
    for (int c = 'A'; c <= 'Z'; ++c) atext.set(static_cast<size_t>(c));
    for (int c = '0'; c <= '9'; ++c) atext.set(static_cast<size_t>(c));
    ByteSet alnum = atext;
    for (const char c : std::string("!#$%&'*+/=?^_`{|}~-")) atext.set(static_cast<uint8_t>(c));
    const Symbol word =
        GrammarBuilder::Ref(b_.AddRule({{b_.Bytes(atext), b_.Star({b_.Bytes(atext)})}}));
    const Symbol an = b_.Bytes(alnum);
    const Symbol label = GrammarBuilder::Ref(
        b_.AddRule({{an, b_.Star({an}),
                     b_.Star({b_.Byte('-'), b_.Star({b_.Byte('-')}), an, b_.Star({an})})}}));
    inside = {word,  b_.Star({b_.Byte('.'), word}), b_.Byte('@'), label, b_.Byte('.'),
              label, b_.Star({b_.Byte('.'), label})};
  } else {
    throw Error(ErrorCode::kInvalidArgument,
                "JSON schema keyword 'format' '" + name +
                    "' is not supported (date, time, date-time, uuid, email are; see README: "
                    "Structured output)");
  }
  Sequence quoted = {b_.Byte('"')};
  Append(quoted, inside);
  quoted.push_back(b_.Byte('"'));
  return GrammarBuilder::Ref(b_.AddRule({quoted}));
}

}  // namespace orcd::structured
