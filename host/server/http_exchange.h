// The request and response a handler thread sees: Poco's server interfaces
// over a request already read in full by the I/O thread, and a response
// written straight to the socket (fixed length, or chunked with one chunk per
// flush so that each SSE event leaves at once). Every status line carries the
// reason phrase of its status.
#ifndef ORCD_HOST_SERVER_HTTP_EXCHANGE_H_
#define ORCD_HOST_SERVER_HTTP_EXCHANGE_H_

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SocketAddress.h>

#include <memory>
#include <sstream>
#include <streambuf>
#include <string>

#include "host/server/http_request_head.h"

namespace orcd {

// Blocking writes to a socket; the body framing is chosen at Start().
class SocketOutputBuffer : public std::streambuf {
 public:
  explicit SocketOutputBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  void Start(bool chunked, int64_t content_length) {
    chunked_ = chunked;
    remaining_ = content_length;
  }
  // Flushes and writes the last chunk; true when the framing was honoured.
  bool Finish();
  bool Write(const char* data, size_t size);  // raw bytes (the header)
  bool failed() const { return failed_; }

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool FlushBuffer();

  int fd_;
  bool chunked_ = false;
  int64_t remaining_ = -1;  // fixed-length bytes still owed; -1 = chunked
  bool failed_ = false;
  char buffer_[8192];
};

class ExchangeResponse : public Poco::Net::HTTPServerResponse {
 public:
  // `http10`: the request was HTTP/1.0, which has no chunked coding: a
  // streamed body is then delimited by the close.
  ExchangeResponse(int fd, bool request_keep_alive, bool http10);
  void sendContinue() override {}  // the I/O thread already sent it
  std::ostream& send() override;
  void sendFile(const std::string& path, const std::string& media_type) override;
  void sendBuffer(const void* buffer, std::size_t length) override;
  void redirect(const std::string& uri, HTTPStatus status = HTTP_FOUND) override;
  void requireAuthentication(const std::string& realm) override;
  bool sent() const override { return sent_; }
  // Ends the response; true when the connection may carry another request.
  bool Finish();

 private:
  SocketOutputBuffer buffer_;
  std::ostream stream_;
  bool http10_;
  bool sent_ = false;
  bool keep_alive_ = false;
};

class ExchangeRequest : public Poco::Net::HTTPServerRequest {
 public:
  ExchangeRequest(const RequestHead& head, std::string body, ExchangeResponse& response, int fd,
                  const Poco::Net::SocketAddress& client, const Poco::Net::SocketAddress& server,
                  const Poco::Net::HTTPServerParams& params);
  std::istream& stream() override { return body_; }
  const Poco::Net::SocketAddress& clientAddress() const override { return client_; }
  const Poco::Net::SocketAddress& serverAddress() const override { return server_; }
  const Poco::Net::HTTPServerParams& serverParams() const override { return params_; }
  Poco::Net::HTTPServerResponse& response() const override { return response_; }
  bool secure() const override { return false; }
  // True once the client has closed or reset its end of the connection.
  bool ClientGone() const;

 private:
  std::istringstream body_;
  ExchangeResponse& response_;
  int fd_;
  Poco::Net::SocketAddress client_, server_;
  const Poco::Net::HTTPServerParams& params_;
};

// ClientGone() for requests served by this layer; false for any other.
bool ClientDisconnected(const Poco::Net::HTTPServerRequest& request);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_HTTP_EXCHANGE_H_
