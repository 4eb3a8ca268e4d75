#include "host/server/http_exchange.h"

#include <poll.h>
#include <sys/socket.h>

#include <Poco/Exception.h>

#include <cerrno>
#include <cstdio>

#include "host/server/http_response.h"

namespace orcd {

bool SocketOutputBuffer::Write(const char* data, size_t size) {
  while (size > 0 && !failed_) {
    const ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL);
    if (n > 0) {
      data += n;
      size -= static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      failed_ = true;  // reset, broken pipe, or the send timeout (a client not reading)
    }
  }
  return !failed_;
}

bool SocketOutputBuffer::FlushBuffer() {
  const size_t n = static_cast<size_t>(pptr() - pbase());
  setp(buffer_, buffer_ + sizeof buffer_);
  if (n == 0 || failed_) return !failed_;
  if (chunked_) {
    char size_line[32];
    const int len = std::snprintf(size_line, sizeof size_line, "%zx\r\n", n);
    std::string chunk(size_line, static_cast<size_t>(len));
    chunk.append(buffer_, n);
    chunk += "\r\n";
    return Write(chunk.data(), chunk.size());
  }
  if (static_cast<int64_t>(n) > remaining_) {
    failed_ = true;  // more than the declared Content-Length
    return false;
  }
  remaining_ -= static_cast<int64_t>(n);
  return Write(buffer_, n);
}

SocketOutputBuffer::int_type SocketOutputBuffer::overflow(int_type c) {
  if (!FlushBuffer()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int SocketOutputBuffer::sync() { return FlushBuffer() ? 0 : -1; }

bool SocketOutputBuffer::Finish() {
  if (!FlushBuffer()) return false;
  if (chunked_) return Write("0\r\n\r\n", 5);
  return remaining_ == 0;
}

ExchangeResponse::ExchangeResponse(int fd, bool request_keep_alive, bool http10)
    : buffer_(fd), stream_(&buffer_), http10_(http10) {
  setVersion(HTTP_1_1);
  setKeepAlive(request_keep_alive);
}

std::ostream& ExchangeResponse::send() {
  if (sent_) return stream_;
  sent_ = true;
  setReason(getReasonForStatus(getStatus()));  // never "503 OK"
  set("Date", HttpDate());
  if (http10_ && getChunkedTransferEncoding()) setChunkedTransferEncoding(false);
  const bool chunked = getChunkedTransferEncoding();
  if (!chunked && !hasContentLength()) setKeepAlive(false);  // the body ends at close
  keep_alive_ = getKeepAlive();
  buffer_.Start(chunked, chunked ? -1 : hasContentLength() ? getContentLength64() : INT64_MAX);
  std::ostringstream head;
  write(head);
  const std::string text = head.str();
  buffer_.Write(text.data(), text.size());
  return stream_;
}

void ExchangeResponse::sendFile(const std::string&, const std::string&) {
  throw Poco::NotImplementedException("sendFile");
}

void ExchangeResponse::sendBuffer(const void* data, std::size_t length) {
  setContentLength(static_cast<std::streamsize>(length));
  send().write(static_cast<const char*>(data), static_cast<std::streamsize>(length));
}

void ExchangeResponse::redirect(const std::string& uri, HTTPStatus status) {
  setStatusAndReason(status);
  set("Location", uri);
  setContentLength(0);
  send();
}

void ExchangeResponse::requireAuthentication(const std::string& realm) {
  setStatusAndReason(HTTP_UNAUTHORIZED);
  set("WWW-Authenticate", "Bearer realm=\"" + realm + "\"");
  setContentLength(0);
  send();
}

bool ExchangeResponse::Finish() {
  stream_.flush();
  const bool framed = buffer_.Finish();
  return framed && !buffer_.failed() && keep_alive_;
}

ExchangeRequest::ExchangeRequest(const RequestHead& head, std::string body,
                                 ExchangeResponse& response, int fd,
                                 const Poco::Net::SocketAddress& client,
                                 const Poco::Net::SocketAddress& server,
                                 const Poco::Net::HTTPServerParams& params)
    : body_(std::move(body)),
      response_(response),
      fd_(fd),
      client_(client),
      server_(server),
      params_(params) {
  setMethod(head.method);
  setURI(head.target);
  setVersion(head.minor_version == 0 ? HTTP_1_0 : HTTP_1_1);
  for (const auto& [name, value] : head.fields) add(name, value);
}

bool ExchangeRequest::ClientGone() const {
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
  char c;
  return ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;  // data waiting: a pipelined request
}

bool ClientDisconnected(const Poco::Net::HTTPServerRequest& request) {
  const auto* exchange = dynamic_cast<const ExchangeRequest*>(&request);
  return exchange != nullptr && exchange->ClientGone();
}

}  // namespace orcd
