#include "host/server/http_util.h"

#include <ctime>
#include <istream>

#include "host/common/logger.h"

namespace orcd {

void SendJson(Poco::Net::HTTPServerResponse& response, Poco::Net::HTTPResponse::HTTPStatus status,
              const std::string& json) {
  response.setStatus(status);
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

std::optional<std::string> ReadBody(Poco::Net::HTTPServerRequest& request,
                                    Poco::Net::HTTPServerResponse& response) {
  if (request.hasContentLength() &&
      request.getContentLength64() > static_cast<Poco::Int64>(kMaxRequestBodyBytes)) {
    SendError(response, Poco::Net::HTTPResponse::HTTP_REQUEST_ENTITY_TOO_LARGE, "INVALID_REQUEST",
              "request body exceeds " + std::to_string(kMaxRequestBodyBytes) + " bytes", false);
    return std::nullopt;
  }
  std::string body;
  std::istream& in = request.stream();
  char buf[8192];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    body.append(buf, static_cast<size_t>(in.gcount()));
    if (body.size() > kMaxRequestBodyBytes) {
      SendError(response, Poco::Net::HTTPResponse::HTTP_REQUEST_ENTITY_TOO_LARGE, "INVALID_REQUEST",
                "request body exceeds " + std::to_string(kMaxRequestBodyBytes) + " bytes", false);
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
