// A strict parser for an HTTP/1.x request head (request line and header
// fields, RFC 9112). Everything that could let two parties disagree about
// where a request ends is refused rather than guessed: both Content-Length and
// Transfer-Encoding, conflicting or malformed lengths, transfer codings other
// than a single "chunked", whitespace before a colon, folded lines, bare CR or
// LF. The caller answers the rejection's status and closes the connection.
#ifndef ORCD_HOST_SERVER_HTTP_REQUEST_HEAD_H_
#define ORCD_HOST_SERVER_HTTP_REQUEST_HEAD_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace orcd {

// Largest request head (request line + fields) accepted; beyond it: 431.
constexpr size_t kMaxRequestHeadBytes = 16 * 1024;
// Longest request target; beyond it: 414.
constexpr size_t kMaxRequestTargetBytes = 8 * 1024;
constexpr size_t kMaxHeaderFields = 100;

enum class BodyFraming { kNone, kContentLength, kChunked };

struct RequestHead {
  std::string method;
  std::string target;  // origin-form as sent ("/path?query")
  std::string path;    // target without the query
  int minor_version = 1;
  std::vector<std::pair<std::string, std::string>> fields;  // names as sent, values trimmed
  BodyFraming framing = BodyFraming::kNone;
  uint64_t content_length = 0;
  bool keep_alive = true;
  bool expect_continue = false;

  // The first field named `name` (case-insensitive), or nullptr.
  const std::string* Find(std::string_view name) const;
};

struct HttpRejection {
  int status = 400;
  std::string message;
};

// Offset just past the "\r\n\r\n" ending the head in `buffer`, or npos.
size_t FindEndOfHead(std::string_view buffer);

// The rejection for a head (complete or not) over kMaxRequestHeadBytes: 414
// when its request line's target alone is over kMaxRequestTargetBytes (a
// long URI is a long URI whatever follows it), else 431.
HttpRejection HeadTooLarge(std::string_view buffer);

// Parses `head` (the bytes up to and including the terminating empty line).
std::variant<RequestHead, HttpRejection> ParseRequestHead(std::string_view head);

bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_HTTP_REQUEST_HEAD_H_
