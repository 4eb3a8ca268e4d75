// Responses written by the HTTP layer itself (protocol errors, 100 Continue,
// the small endpoints answered on the I/O thread): status line with the
// reason phrase of its status, fields, and a Content-Length body.
#ifndef ORCD_HOST_SERVER_HTTP_RESPONSE_H_
#define ORCD_HOST_SERVER_HTTP_RESPONSE_H_

#include <string>
#include <utility>
#include <vector>

namespace orcd {

struct InlineResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> fields;  // extra header fields
  bool close = false;  // end the connection after this response
};

// "HTTP/1.1 503 Service Unavailable\r\n".
std::string StatusLine(int status);
// "Date: Sun, 06 Nov 1994 08:49:37 GMT" value for now.
std::string HttpDate();
// The whole response; "Connection: close" unless `keep_alive`.
std::string SerializeResponse(const InlineResponse& response, bool keep_alive);
// {"code","message","retriable"} with `status`.
InlineResponse JsonError(int status, const std::string& code, const std::string& message,
                         bool retriable);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_HTTP_RESPONSE_H_
