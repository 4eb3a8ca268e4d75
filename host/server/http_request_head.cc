#include "host/server/http_request_head.h"

#include <algorithm>

namespace orcd {
namespace {

// RFC 9110 §5.6.2 token characters.
bool IsTokenChar(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return IsTokenChar(static_cast<unsigned char>(c));
  });
}

// Field values: visible ASCII, obs-text, space and tab; no other controls.
bool IsFieldValue(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c == '\t' || (c >= 0x20 && c != 0x7f);
  });
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits a comma-separated list into trimmed elements (empty ones kept, so
// that "chunked," is not mistaken for "chunked").
std::vector<std::string_view> SplitList(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t comma = s.find(',', start);
    out.push_back(TrimOws(s.substr(start, comma - start)));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

HttpRejection Reject(int status, std::string message) { return {status, std::move(message)}; }

// "HTTP/1.1" -> 1; only "HTTP/" DIGIT "." DIGIT is well formed.
std::variant<int, HttpRejection> ParseVersion(std::string_view v) {
  if (v.size() != 8 || v.substr(0, 5) != "HTTP/" || v[6] != '.' || v[5] < '0' || v[5] > '9' ||
      v[7] < '0' || v[7] > '9') {
    return Reject(400, "malformed HTTP version");
  }
  if (v[5] != '1') return Reject(505, "only HTTP/1.0 and HTTP/1.1 are supported");
  return v[7] == '0' ? 0 : 1;  // 1.x with x > 1 is served as 1.1
}

// Every CR must start a CRLF and every LF must end one.
bool LineEndingsAreCrlf(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r' && (i + 1 >= s.size() || s[i + 1] != '\n')) return false;
    if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r')) return false;
  }
  return true;
}

std::variant<uint64_t, HttpRejection> ParseContentLength(const std::vector<std::string_view>& all) {
  constexpr size_t kMaxDigits = 18;  // below 2^63: no overflow to reason about
  bool seen = false;
  uint64_t length = 0;
  for (std::string_view field : all) {
    for (std::string_view element : SplitList(field)) {
      if (element.empty() || element.size() > kMaxDigits ||
          !std::all_of(element.begin(), element.end(),
                       [](char c) { return c >= '0' && c <= '9'; })) {
        return Reject(400, "invalid Content-Length");
      }
      uint64_t value = 0;
      for (char c : element) value = value * 10 + static_cast<uint64_t>(c - '0');
      if (seen && value != length) return Reject(400, "conflicting Content-Length values");
      seen = true;
      length = value;
    }
  }
  return length;
}

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x >= 'A' && x <= 'Z' ? x | 0x20 : x) == (y >= 'A' && y <= 'Z' ? y | 0x20 : y);
         });
}

const std::string* RequestHead::Find(std::string_view name) const {
  for (const auto& [key, value] : fields) {
    if (EqualsIgnoreCase(key, name)) return &value;
  }
  return nullptr;
}

size_t FindEndOfHead(std::string_view buffer) {
  const size_t at = buffer.find("\r\n\r\n");
  return at == std::string_view::npos ? at : at + 4;
}

HttpRejection HeadTooLarge(std::string_view buffer) {
  const std::string_view line = buffer.substr(0, buffer.find("\r\n"));
  const size_t sp1 = line.find(' ');
  if (sp1 != std::string_view::npos) {
    const size_t sp2 = line.find(' ', sp1 + 1);
    const size_t target = (sp2 == std::string_view::npos ? line.size() : sp2) - sp1 - 1;
    if (target > kMaxRequestTargetBytes) return {414, "request target too long"};
  }
  return {431, "request head exceeds " + std::to_string(kMaxRequestHeadBytes) + " bytes"};
}

std::variant<RequestHead, HttpRejection> ParseRequestHead(std::string_view head) {
  if (head.size() > kMaxRequestHeadBytes) return HeadTooLarge(head);
  if (!LineEndingsAreCrlf(head)) return Reject(400, "lines must end with CRLF");
  RequestHead r;
  const size_t line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Reject(400, "malformed request line");
  }
  auto version = ParseVersion(line.substr(sp2 + 1));
  if (auto* rejection = std::get_if<HttpRejection>(&version)) return *rejection;
  r.minor_version = std::get<int>(version);
  r.method = std::string(line.substr(0, sp1));
  r.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  if (!IsToken(r.method)) return Reject(400, "malformed method");
  if (r.target.size() > kMaxRequestTargetBytes) return Reject(414, "request target too long");
  const bool visible = std::all_of(r.target.begin(), r.target.end(), [](char c) {
    return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
  });
  if (!visible || (r.target.front() != '/' && !(r.target == "*" && r.method == "OPTIONS"))) {
    return Reject(400, "request target must be an absolute path");
  }
  r.path = r.target.substr(0, r.target.find('?'));

  std::vector<std::string_view> lengths, codings, hosts;
  bool connection_close = false, connection_keep_alive = false;
  for (size_t pos = line_end + 2; pos < head.size();) {
    const size_t end = head.find("\r\n", pos);
    const std::string_view field = head.substr(pos, end - pos);
    pos = end + 2;
    if (field.empty()) break;  // the empty line ending the head
    if (field.front() == ' ' || field.front() == '\t') return Reject(400, "folded header line");
    const size_t colon = field.find(':');
    if (colon == std::string_view::npos) return Reject(400, "header line without a colon");
    const std::string_view name = field.substr(0, colon);
    if (!IsToken(name)) return Reject(400, "malformed header name");
    const std::string_view value = TrimOws(field.substr(colon + 1));
    if (!IsFieldValue(value)) return Reject(400, "control character in a header value");
    if (r.fields.size() == kMaxHeaderFields) return Reject(431, "too many header fields");
    r.fields.emplace_back(std::string(name), std::string(value));
    if (EqualsIgnoreCase(name, "Content-Length")) lengths.push_back(value);
    if (EqualsIgnoreCase(name, "Transfer-Encoding")) codings.push_back(value);
    if (EqualsIgnoreCase(name, "Host")) hosts.push_back(value);
    if (EqualsIgnoreCase(name, "Connection")) {
      for (std::string_view option : SplitList(value)) {
        connection_close |= EqualsIgnoreCase(option, "close");
        connection_keep_alive |= EqualsIgnoreCase(option, "keep-alive");
      }
    }
    if (EqualsIgnoreCase(name, "Expect")) {
      if (!EqualsIgnoreCase(value, "100-continue")) return Reject(417, "unsupported expectation");
      r.expect_continue = true;
    }
  }
  if (hosts.size() > 1 || (r.minor_version == 1 && hosts.empty())) {
    return Reject(400, "an HTTP/1.1 request needs exactly one Host field");
  }
  r.keep_alive = r.minor_version == 1 ? !connection_close : connection_keep_alive;

  if (!codings.empty()) {
    if (!lengths.empty()) return Reject(400, "both Transfer-Encoding and Content-Length");
    if (r.minor_version == 0) return Reject(400, "Transfer-Encoding in an HTTP/1.0 request");
    std::vector<std::string_view> list;
    for (std::string_view field : codings) {
      for (std::string_view coding : SplitList(field)) list.push_back(coding);
    }
    if (list.size() != 1 || !EqualsIgnoreCase(list[0], "chunked")) {
      return Reject(501, "the only transfer coding supported is a single chunked");
    }
    r.framing = BodyFraming::kChunked;
  } else if (!lengths.empty()) {
    auto length = ParseContentLength(lengths);
    if (auto* rejection = std::get_if<HttpRejection>(&length)) return *rejection;
    r.content_length = std::get<uint64_t>(length);
    r.framing = r.content_length > 0 ? BodyFraming::kContentLength : BodyFraming::kNone;
  }
  return r;
}

}  // namespace orcd
