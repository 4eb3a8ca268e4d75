// JSON string escaping shared by the logger, the server, the tools and the
// benchmarks (one implementation, so control characters and quotes are escaped
// the same way everywhere).
#ifndef ORCD_HOST_COMMON_JSON_ESCAPE_H_
#define ORCD_HOST_COMMON_JSON_ESCAPE_H_

#include <string>
#include <string_view>

namespace orcd {

// Escapes `text` as the inside of a JSON string literal.
std::string JsonEscape(std::string_view text);
// `text` as a complete JSON string literal (quoted, escaped).
std::string JsonQuote(std::string_view text);

}  // namespace orcd

#endif  // ORCD_HOST_COMMON_JSON_ESCAPE_H_
