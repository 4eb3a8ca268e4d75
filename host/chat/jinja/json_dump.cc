#include "host/chat/jinja/json_dump.h"

#include <algorithm>
#include <cmath>

#include "host/chat/jinja/py_format.h"
#include "host/chat/jinja/py_string.h"
#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

// Python's json module gives up with RecursionError near this depth too.
constexpr int kMaxDepth = 512;

class Dumper {
 public:
  explicit Dumper(const JsonDumpOptions& o)
      : o_(o),
        item_sep_(o.item_separator.value_or(o.indent ? "," : ", ")),
        key_sep_(o.key_separator.value_or(": ")) {}

  void Dump(const Value& v, int depth) {
    if (depth > kMaxDepth) throw TemplateError(ErrorKind::kLimit, "tojson: value nests too deeply");
    switch (v.kind()) {
      case Value::Kind::kNone:
        out_ += "null";
        return;
      case Value::Kind::kBool:
        out_ += v.AsBool() ? "true" : "false";
        return;
      case Value::Kind::kInt:
        out_ += std::to_string(v.AsInt());
        return;
      case Value::Kind::kFloat:
        DumpFloat(v.AsFloat());
        return;
      case Value::Kind::kString:
        out_ += JsonQuote(v.AsString(), o_.ensure_ascii);
        return;
      case Value::Kind::kList:
        DumpList(v.AsList(), depth);
        return;
      case Value::Kind::kDict:
        DumpDict(v.AsDict(), depth);
        return;
      default:
        throw TemplateError(ErrorKind::kType,
                            "Object of type " + TypeName(v) + " is not JSON serializable");
    }
  }

  std::string Take() { return std::move(out_); }

 private:
  void DumpFloat(double x) {
    if (std::isnan(x)) {
      out_ += "NaN";
    } else if (std::isinf(x)) {
      out_ += x > 0 ? "Infinity" : "-Infinity";
    } else {
      out_ += FloatRepr(x);
    }
  }

  void Newline(int level) {
    if (!o_.indent) return;
    out_ += '\n';
    for (int i = 0; i < level; ++i) out_ += *o_.indent;
  }

  void DumpList(const ValueList& items, int depth) {
    if (items.empty()) {
      out_ += "[]";
      return;
    }
    out_ += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out_ += item_sep_;
      Newline(depth + 1);
      Dump(items[i], depth + 1);
    }
    Newline(depth);
    out_ += ']';
  }

  void DumpDict(const Dict& dict, int depth) {
    if (dict.empty()) {
      out_ += "{}";
      return;
    }
    std::vector<const Dict::Entry*> entries;
    for (const Dict::Entry& e : dict.entries()) entries.push_back(&e);
    if (o_.sort_keys) {
      std::stable_sort(
          entries.begin(), entries.end(),
          [](const Dict::Entry* a, const Dict::Entry* b) { return a->first < b->first; });
    }
    out_ += '{';
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i > 0) out_ += item_sep_;
      Newline(depth + 1);
      out_ += JsonQuote(entries[i]->first, o_.ensure_ascii);
      out_ += key_sep_;
      Dump(entries[i]->second, depth + 1);
    }
    Newline(depth);
    out_ += '}';
  }

  const JsonDumpOptions& o_;
  std::string item_sep_;
  std::string key_sep_;
  std::string out_;
};

}  // namespace

std::string JsonQuote(std::string_view s, bool ensure_ascii) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto unicode_escape = [](std::string& out, uint32_t unit) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(unit >> shift) & 15];
  };
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (size_t pos = 0; pos < s.size();) {
    const size_t here = pos;
    const char32_t c = NextCodePoint(s, pos);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          unicode_escape(out, c);
        } else if (ensure_ascii && c >= 0x80) {
          if (c >= 0x10000) {
            unicode_escape(out, 0xD800 + ((c - 0x10000) >> 10));
            unicode_escape(out, 0xDC00 + ((c - 0x10000) & 0x3FF));
          } else {
            unicode_escape(out, c);
          }
        } else {
          out.append(s.substr(here, pos - here));
        }
    }
  }
  out += '"';
  return out;
}

std::string JsonDump(const Value& value, const JsonDumpOptions& options) {
  Dumper d(options);
  d.Dump(value, 0);
  return d.Take();
}

}  // namespace orcd::jinja
