// Optional bearer-token authentication (server.auth_token or
// server.auth_token_file): every route but the health probes needs
// "Authorization: Bearer <token>". The token is compared in constant time and
// never logged.
#ifndef ORCD_HOST_SERVER_AUTH_H_
#define ORCD_HOST_SERVER_AUTH_H_

#include <optional>
#include <string>
#include <string_view>

#include "host/server/http_request_head.h"
#include "host/server/http_response.h"

namespace orcd {

// Equality whose time depends only on the lengths, not on where they differ.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// /health, /health/live, /health/ready: orchestrators probe them without
// credentials.
bool IsAuthExempt(std::string_view path);

// nullopt when `token` is empty (auth off), the path is exempt, or the request
// carries the token; otherwise the 401 to answer.
std::optional<InlineResponse> CheckAuth(const RequestHead& head, const std::string& token);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_AUTH_H_
