// Small helpers shared by the HTTP handlers: JSON error bodies and body reads.
#ifndef ORCD_HOST_SERVER_HTTP_UTIL_H_
#define ORCD_HOST_SERVER_HTTP_UTIL_H_

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <optional>
#include <string>

namespace orcd {

constexpr size_t kMaxRequestBodyBytes = 1 << 20;

// Sends {"code","message","retriable"[,"field"]} with `status`.
void SendError(Poco::Net::HTTPServerResponse& response, Poco::Net::HTTPResponse::HTTPStatus status,
               const std::string& code, const std::string& message, bool retriable,
               const std::string& field = "");
void SendJson(Poco::Net::HTTPServerResponse& response, Poco::Net::HTTPResponse::HTTPStatus status,
              const std::string& json);
// OpenAI's error shape (/v1/completions, /v1/chat/completions, /v1/responses):
// {"error":{"message","type","param","code"}}, param null when empty.
void SendOpenAiError(Poco::Net::HTTPServerResponse& response,
                     Poco::Net::HTTPResponse::HTTPStatus status, const std::string& type,
                     const std::string& code, const std::string& message,
                     const std::string& param = "");
// Reads the body; nullopt (after answering 413) when it exceeds the limit.
std::optional<std::string> ReadBody(Poco::Net::HTTPServerRequest& request,
                                    Poco::Net::HTTPServerResponse& response);
// ISO-8601 UTC timestamp with seconds, e.g. 2026-11-22T20:00:00Z.
std::string UtcNowIso8601();

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_HTTP_UTIL_H_
