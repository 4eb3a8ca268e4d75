#include "host/server/http_util.h"

#include <ctime>
#include <istream>

#include "host/common/json_escape.h"
#include "host/common/logger.h"

namespace orcd {

void SendJson(Poco::Net::HTTPServerResponse& response, Poco::Net::HTTPResponse::HTTPStatus status,
              const std::string& json) {
  response.setStatusAndReason(status);
  response.setContentType("application/json");
  response.setContentLength(static_cast<std::streamsize>(json.size()));
  response.send() << json;
}

void SendError(Poco::Net::HTTPServerResponse& response, Poco::Net::HTTPResponse::HTTPStatus status,
               const std::string& code, const std::string& message, bool retriable,
               const std::string& field) {
  std::string json = "{\"code\":\"" + code + "\",\"message\":\"" + JsonEscape(message) + "\"";
  if (!field.empty()) json += ",\"field\":\"" + JsonEscape(field) + "\"";
  json += std::string(",\"retriable\":") + (retriable ? "true" : "false") + "}";
  SendJson(response, status, json);
}

namespace {

// Reads and drops what is left of an oversized body (up to a cap) so the
// client, still sending, reads our 413 instead of a connection reset.
void DiscardBody(std::istream& in) {
  constexpr size_t kMaxDiscardBytes = 16 * kMaxRequestBodyBytes;
  char buf[8192];
  size_t dropped = 0;
  while (dropped < kMaxDiscardBytes && (in.read(buf, sizeof buf) || in.gcount() > 0)) {
    dropped += static_cast<size_t>(in.gcount());
  }
}

void SendTooLarge(Poco::Net::HTTPServerResponse& response) {
  response.setKeepAlive(false);
  SendError(response, Poco::Net::HTTPResponse::HTTP_REQUEST_ENTITY_TOO_LARGE, "INVALID_REQUEST",
            "request body exceeds " + std::to_string(kMaxRequestBodyBytes) + " bytes", false);
}

}  // namespace

void SendOpenAiError(Poco::Net::HTTPServerResponse& response,
                     Poco::Net::HTTPResponse::HTTPStatus status, const std::string& type,
                     const std::string& code, const std::string& message,
                     const std::string& param) {
  SendJson(response, status,
           "{\"error\":{\"message\":" + JsonQuote(message) + ",\"type\":" + JsonQuote(type) +
               ",\"param\":" + (param.empty() ? "null" : JsonQuote(param)) +
               ",\"code\":" + JsonQuote(code) + "}}");
}

std::optional<std::string> ReadBody(Poco::Net::HTTPServerRequest& request,
                                    Poco::Net::HTTPServerResponse& response) {
  std::istream& in = request.stream();
  if (request.hasContentLength() &&
      request.getContentLength64() > static_cast<Poco::Int64>(kMaxRequestBodyBytes)) {
    DiscardBody(in);
    SendTooLarge(response);
    return std::nullopt;
  }
  std::string body;
  char buf[8192];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    body.append(buf, static_cast<size_t>(in.gcount()));
    if (body.size() > kMaxRequestBodyBytes) {
      DiscardBody(in);
      SendTooLarge(response);
      return std::nullopt;
    }
  }
  return body;
}

std::string UtcNowIso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace orcd
