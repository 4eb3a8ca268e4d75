#include "host/server/http_response.h"

#include <Poco/Net/HTTPResponse.h>

#include <ctime>

#include "host/common/logger.h"

namespace orcd {

std::string StatusLine(int status) {
  return "HTTP/1.1 " + std::to_string(status) + " " +
         Poco::Net::HTTPResponse::getReasonForStatus(
             static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status)) +
         "\r\n";
}

std::string HttpDate() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::string SerializeResponse(const InlineResponse& r, bool keep_alive) {
  std::string out = StatusLine(r.status);
  out += "Date: " + HttpDate() + "\r\n";
  for (const auto& [name, value] : r.fields) out += name + ": " + value + "\r\n";
  if (!r.content_type.empty()) out += "Content-Type: " + r.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  if (!keep_alive || r.close) out += "Connection: close\r\n";
  out += "\r\n";
  out += r.body;
  return out;
}

InlineResponse JsonError(int status, const std::string& code, const std::string& message,
                         bool retriable) {
  InlineResponse r;
  r.status = status;
  r.body = "{\"code\":\"" + code + "\",\"message\":\"" + JsonEscape(message) +
           "\",\"retriable\":" + (retriable ? "true" : "false") + "}";
  return r;
}

}  // namespace orcd
