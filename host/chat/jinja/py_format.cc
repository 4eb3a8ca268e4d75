#include "host/chat/jinja/py_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "host/chat/jinja/py_string.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

[[noreturn]] void FormatError(const std::string& message) {
  throw TemplateError(ErrorKind::kType, message);
}

// One %-conversion spec: flags, width, precision.
struct Spec {
  std::string flags;
  int width = -1;
  int precision = -1;
  char conversion = 's';
};

std::string Pad(std::string body, const Spec& spec, bool numeric) {
  const auto width = static_cast<size_t>(spec.width < 0 ? 0 : spec.width);
  const size_t len = CodePointCount(body);
  if (len >= width) return body;
  const size_t fill = width - len;
  if (spec.flags.find('-') != std::string::npos) return body + std::string(fill, ' ');
  if (numeric && spec.flags.find('0') != std::string::npos) {
    const size_t sign =
        !body.empty() && (body[0] == '-' || body[0] == '+' || body[0] == ' ') ? 1 : 0;
    return body.substr(0, sign) + std::string(fill, '0') + body.substr(sign);
  }
  return std::string(fill, ' ') + body;
}

std::string FormatNumber(const Value& v, const Spec& spec) {
  if (!v.is_number()) {
    FormatError(std::string("%") + spec.conversion + " format: a real number is required, not " +
                TypeName(v));
  }
  std::string flags;
  for (const char f : spec.flags) {
    if (f == '+' || f == ' ' || f == '#') flags += f;
  }
  char buf[512];
  const char c = spec.conversion;
  if (c == 'd' || c == 'i' || c == 'u' || c == 'x' || c == 'X' || c == 'o') {
    if (v.is_float() && !std::isfinite(v.AsFloat())) FormatError("cannot convert float to integer");
    const long long n = v.is_float() ? static_cast<long long>(std::trunc(v.AsFloat())) : v.AsInt();
    const char conv = (c == 'i' || c == 'u') ? 'd' : c;
    const std::string fmt = "%" + flags +
                            (spec.precision >= 0 ? "." + std::to_string(spec.precision) : "") +
                            "ll" + conv;
    std::snprintf(buf, sizeof buf, fmt.c_str(), n);
  } else {
    const int precision = spec.precision < 0 ? 6 : std::min(spec.precision, 100);
    const std::string fmt = "%" + flags + "." + std::to_string(precision) + c;
    std::snprintf(buf, sizeof buf, fmt.c_str(), v.AsFloat());
  }
  return Pad(buf, spec, true);
}

std::string FormatOne(const Value& v, const Spec& spec) {
  switch (spec.conversion) {
    case 's':
    case 'r':
    case 'a': {
      std::string s = spec.conversion == 's' ? ToStr(v) : Repr(v);
      if (spec.precision >= 0) {
        const std::vector<size_t> off = CodePointOffsets(s);
        if (static_cast<size_t>(spec.precision) + 1 < off.size())
          s.resize(off[static_cast<size_t>(spec.precision)]);
      }
      return Pad(s, spec, false);
    }
    case 'c': {
      std::string s;
      if (v.is_string() && CodePointCount(v.AsString()) == 1) {
        s = v.AsString();
      } else if (v.is_integral() && v.AsInt() >= 0 && v.AsInt() <= 0x10FFFF) {
        AppendUtf8(s, static_cast<char32_t>(v.AsInt()));
      } else {
        FormatError("%c requires int or char");
      }
      return Pad(s, spec, false);
    }
    case 'd':
    case 'i':
    case 'u':
    case 'x':
    case 'X':
    case 'o':
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
      return FormatNumber(v, spec);
    default:
      throw TemplateError(ErrorKind::kValue,
                          std::string("unsupported format character '") + spec.conversion + "'");
  }
}

}  // namespace

std::string FloatRepr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  // Shortest round-trip digits, then CPython's layout rules (float_repr_style 'short').
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  (void)ec;
  std::string_view sci(buf, static_cast<size_t>(end - buf));
  std::string sign;
  if (sci.front() == '-') {
    sign = "-";
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (const char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exponent = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                  exponent);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int decpt = exponent + 1;  // value = 0.DIGITS * 10^decpt
  const auto ndigits = static_cast<int>(digits.size());
  std::string out = sign;
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (ndigits > 1) out += "." + digits.substr(1);
    const int shown = decpt - 1;
    char expbuf[16];
    std::snprintf(expbuf, sizeof expbuf, "e%c%02d", shown < 0 ? '-' : '+', std::abs(shown));
    out += expbuf;
  } else if (decpt <= 0) {
    out += "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
  } else if (decpt >= ndigits) {
    out += digits + std::string(static_cast<size_t>(decpt - ndigits), '0') + ".0";
  } else {
    out += digits.substr(0, static_cast<size_t>(decpt)) + "." +
           digits.substr(static_cast<size_t>(decpt));
  }
  return out;
}

std::string StringRepr(std::string_view s) {
  const bool has_single = s.find('\'') != std::string_view::npos;
  const bool has_double = s.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (size_t pos = 0; pos < s.size();) {
    const size_t here = pos;
    const char32_t cp = NextCodePoint(s, pos);
    char buf[16];
    if (cp == static_cast<char32_t>(quote) || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20 || cp == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
      out += buf;
    } else if (cp < 0x7F || IsPyPrintable(cp)) {
      out.append(s.substr(here, pos - here));
    } else if (cp <= 0xFF) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
      out += buf;
    } else if (cp <= 0xFFFF) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(cp));
      out += buf;
    }
  }
  out += quote;
  return out;
}

std::string PercentFormat(std::string_view format, const Value& args) {
  const bool mapping = args.is_dict();
  ValueList positional;
  if (args.is_tuple()) {
    positional = args.AsList();
  } else if (!mapping) {
    positional.push_back(args);
  }
  size_t next = 0;
  auto take = [&]() -> const Value& {
    if (next >= positional.size()) FormatError("not enough arguments for format string");
    return positional[next++];
  };
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    if (++i >= format.size()) throw TemplateError(ErrorKind::kValue, "incomplete format");
    const Value* keyed = nullptr;
    if (format[i] == '(') {
      const size_t close = format.find(')', i);
      if (close == std::string_view::npos)
        throw TemplateError(ErrorKind::kValue, "incomplete format key");
      if (!mapping) FormatError("format requires a mapping");
      keyed = args.AsDict().Find(format.substr(i + 1, close - i - 1));
      if (keyed == nullptr) {
        throw TemplateError(
            ErrorKind::kValue,
            "format key '" + std::string(format.substr(i + 1, close - i - 1)) + "' is missing");
      }
      i = close + 1;
    }
    Spec spec;
    while (i < format.size() && std::string_view("-+ #0").find(format[i]) != std::string_view::npos)
      spec.flags += format[i++];
    auto number = [&](int& target) {
      if (i < format.size() && format[i] == '*') {
        const Value& v = take();
        if (!v.is_integral()) FormatError("* wants int");
        target = static_cast<int>(std::clamp<int64_t>(v.AsInt(), -1000, 1000));
        ++i;
        return;
      }
      while (i < format.size() && format[i] >= '0' && format[i] <= '9') {
        target = std::max(target, 0) * 10 + (format[i++] - '0');
        if (target > 1000) throw TemplateError(ErrorKind::kLimit, "format width too large");
      }
    };
    number(spec.width);
    if (i < format.size() && format[i] == '.') {
      ++i;
      spec.precision = 0;
      number(spec.precision);
    }
    while (i < format.size() && (format[i] == 'l' || format[i] == 'h' || format[i] == 'L')) ++i;
    if (i >= format.size()) throw TemplateError(ErrorKind::kValue, "incomplete format");
    spec.conversion = format[i];
    if (spec.conversion == '%') {
      out += '%';
      continue;
    }
    out += FormatOne(keyed != nullptr ? *keyed : take(), spec);
  }
  if (!mapping && next < positional.size())
    FormatError("not all arguments converted during string formatting");
  return out;
}

}  // namespace orcd::jinja
