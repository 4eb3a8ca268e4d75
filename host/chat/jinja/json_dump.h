// tojson as transformers defines it: json.dumps(x, ensure_ascii=False,
// indent=..., separators=..., sort_keys=...): non-ASCII kept, keys in
// insertion order, ", " / ": " separators ("," between items when indented),
// no HTML escaping (unlike jinja2's own tojson filter).
#ifndef ORCD_HOST_CHAT_JINJA_JSON_DUMP_H_
#define ORCD_HOST_CHAT_JINJA_JSON_DUMP_H_

#include <optional>
#include <string>

#include "host/chat/jinja/value.h"

namespace orcd::jinja {

struct JsonDumpOptions {
  std::optional<std::string> indent;  // nullopt: one line
  std::optional<std::string> item_separator;
  std::optional<std::string> key_separator;
  bool sort_keys = false;
  bool ensure_ascii = false;  // true: non-ASCII as \uXXXX (surrogate pairs past U+FFFF)
};

// Throws TemplateError(kType) for what JSON cannot hold (undefined, macros).
std::string JsonDump(const Value& value, const JsonDumpOptions& options);
// A JSON string literal (with quotes), escaped as json.dumps(ensure_ascii=False).
std::string JsonQuote(std::string_view s, bool ensure_ascii = false);

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_JSON_DUMP_H_
