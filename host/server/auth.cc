#include "host/server/auth.h"

namespace orcd {

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Every byte of `a` is visited whatever `b` holds; the length check is last.
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const unsigned char other = b.empty() ? 0 : static_cast<unsigned char>(b[i % b.size()]);
    diff = static_cast<unsigned char>(diff | (static_cast<unsigned char>(a[i]) ^ other));
  }
  return diff == 0 && a.size() == b.size();
}

bool IsAuthExempt(std::string_view path) {
  return path == "/health" || path == "/health/live" || path == "/health/ready";
}

std::optional<InlineResponse> CheckAuth(const RequestHead& head, const std::string& token) {
  if (token.empty() || IsAuthExempt(head.path)) return std::nullopt;
  std::string_view presented;
  if (const std::string* value = head.Find("Authorization")) {
    constexpr std::string_view kScheme = "Bearer ";
    if (value->size() > kScheme.size() &&
        EqualsIgnoreCase(std::string_view(*value).substr(0, kScheme.size()), kScheme)) {
      presented = std::string_view(*value).substr(kScheme.size());
    }
  }
  if (!presented.empty() && ConstantTimeEquals(token, presented)) return std::nullopt;
  InlineResponse r =
      JsonError(401, "UNAUTHORIZED", "this worker needs \"Authorization: Bearer <token>\"", false);
  r.fields.emplace_back("WWW-Authenticate", "Bearer");
  return r;
}

}  // namespace orcd
