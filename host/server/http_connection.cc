#include "host/server/http_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace orcd {
namespace {

constexpr size_t kReadChunkBytes = 16 * 1024;
constexpr size_t kMaxReadPerCallBytes = 64 * 1024;  // fairness between connections
// Input drained after an error answer before closing, so that a client still
// sending a refused body (e.g. 2 MiB over the 1 MiB limit) reads the answer
// instead of a reset; bounded, as is the linger time.
constexpr size_t kMaxLingerBytes = 8 << 20;
// Empty lines tolerated before a request line (RFC 9112 §2.2).
constexpr size_t kMaxLeadingEmptyLines = 4;

}  // namespace

HttpConnection::Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<HttpConnection::Clock::duration>(
      std::chrono::duration<double>(s));
}

HttpConnection::HttpConnection(int fd, const sockaddr_storage& peer, socklen_t peer_len,
                               uint64_t serial)
    : fd_(fd), peer_(peer), peer_len_(peer_len), serial_(serial) {}

HttpConnection::~HttpConnection() { Close(); }

bool HttpConnection::wants_read() const {
  return phase_ == Phase::kIdle || phase_ == Phase::kHead || phase_ == Phase::kBody ||
         phase_ == Phase::kLingering;
}

bool HttpConnection::abandoned() const {
  return peer_closed_ && (phase_ == Phase::kIdle || phase_ == Phase::kHead ||
                          phase_ == Phase::kBody || phase_ == Phase::kLingering);
}

bool HttpConnection::truncated() const {
  return peer_closed_ && (phase_ == Phase::kHead || phase_ == Phase::kBody);
}

void HttpConnection::ReadAvailable() {
  char buf[kReadChunkBytes];
  size_t total = 0;
  while (total < kMaxReadPerCallBytes && !peer_closed_) {
    const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      total += static_cast<size_t>(n);
      if (phase_ == Phase::kLingering) {
        lingered_bytes_ += static_cast<size_t>(n);
      } else {
        in_.append(buf, static_cast<size_t>(n));
      }
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0 && errno == EINTR) continue;
    peer_closed_ = true;  // EOF, or a reset
  }
  if (phase_ == Phase::kLingering && lingered_bytes_ > kMaxLingerBytes) peer_closed_ = true;
}

void HttpConnection::Reject(int status, std::string message) {
  rejection_ = {status, std::move(message)};
}

HttpConnection::Event HttpConnection::Advance(const HttpTimeouts& timeouts, size_t max_body_bytes,
                                              Clock::time_point now) {
  if (phase_ == Phase::kIdle) {
    for (size_t k = 0; k < kMaxLeadingEmptyLines && in_.compare(0, 2, "\r\n") == 0; ++k) {
      in_.erase(0, 2);
    }
    if (in_.empty()) return Event::kNeedMore;
    phase_ = Phase::kHead;
    deadline_ = now + Seconds(timeouts.header_s);
  }
  if (phase_ == Phase::kHead) {
    const size_t end = FindEndOfHead(in_);
    if (end == std::string::npos) {
      if (in_.size() > kMaxRequestHeadBytes) {
        rejection_ = HeadTooLarge(in_);
        return Event::kRejected;
      }
      return Event::kNeedMore;
    }
    auto parsed = ParseRequestHead(std::string_view(in_).substr(0, end));
    if (auto* rejection = std::get_if<HttpRejection>(&parsed)) {
      rejection_ = *rejection;
      return Event::kRejected;
    }
    head_ = std::move(std::get<RequestHead>(parsed));
    in_.erase(0, end);
    body_.clear();
    chunked_.reset();
    if (head_.framing == BodyFraming::kContentLength && head_.content_length > max_body_bytes) {
      Reject(413, "request body exceeds " + std::to_string(max_body_bytes) + " bytes");
      return Event::kRejected;
    }
    if (head_.framing == BodyFraming::kChunked) chunked_.emplace(max_body_bytes);
    phase_ = Phase::kBody;
    deadline_ = now + Seconds(timeouts.body_s);
    const bool body_pending =
        head_.framing == BodyFraming::kChunked ||
        (head_.framing == BodyFraming::kContentLength && in_.size() < head_.content_length);
    if (head_.expect_continue && body_pending && head_.minor_version == 1) {
      out_ += "HTTP/1.1 100 Continue\r\n\r\n";
    }
  }
  if (phase_ == Phase::kBody) {
    if (head_.framing == BodyFraming::kChunked) {
      size_t consumed = 0;
      const ChunkedDecoder::Status s = chunked_->Feed(in_, &body_, &consumed);
      in_.erase(0, consumed);
      if (s == ChunkedDecoder::Status::kMalformed) {
        Reject(400, "malformed chunked body");
        return Event::kRejected;
      }
      if (s == ChunkedDecoder::Status::kTooLarge) {
        Reject(413, "request body exceeds " + std::to_string(max_body_bytes) + " bytes");
        return Event::kRejected;
      }
      if (s == ChunkedDecoder::Status::kNeedMore) return Event::kNeedMore;
    } else if (head_.framing == BodyFraming::kContentLength) {
      const size_t want = static_cast<size_t>(head_.content_length) - body_.size();
      const size_t take = std::min(want, in_.size());
      body_.append(in_, 0, take);
      in_.erase(0, take);
      if (body_.size() < head_.content_length) return Event::kNeedMore;
    }
    return Event::kRequestReady;
  }
  return Event::kNeedMore;
}

void HttpConnection::QueueResponse(std::string bytes, bool close_after,
                                   const HttpTimeouts& timeouts, Clock::time_point now) {
  out_.erase(0, out_pos_);
  out_pos_ = 0;
  out_ += bytes;
  close_after_write_ = close_after;
  phase_ = Phase::kWriting;
  deadline_ = now + Seconds(timeouts.send_s);
  WriteAvailable(timeouts, now);
}

void HttpConnection::WriteAvailable(const HttpTimeouts& timeouts, Clock::time_point now) {
  while (out_pos_ < out_.size()) {
    const ssize_t n =
        ::send(fd_, out_.data() + out_pos_, out_.size() - out_pos_, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      out_pos_ += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    Close();  // the client is gone
    return;
  }
  out_.clear();
  out_pos_ = 0;
  if (phase_ != Phase::kWriting) return;  // a 100 Continue went out mid-body
  if (close_after_write_) {
    StartLinger(timeouts, now);
  } else {
    phase_ = Phase::kIdle;
    deadline_ = now + Seconds(timeouts.idle_s);
    waiting_since_ = now;
  }
}

void HttpConnection::Resume(bool keep_alive, const HttpTimeouts& timeouts, Clock::time_point now) {
  if (!keep_alive) {
    StartLinger(timeouts, now);
    return;
  }
  phase_ = Phase::kIdle;
  deadline_ = now + Seconds(timeouts.idle_s);
  waiting_since_ = now;
}

void HttpConnection::StartLinger(const HttpTimeouts& timeouts, Clock::time_point now) {
  if (fd_ < 0) return;
  ::shutdown(fd_, SHUT_WR);
  in_.clear();
  phase_ = Phase::kLingering;
  deadline_ = now + Seconds(timeouts.linger_s);
}

void HttpConnection::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  phase_ = Phase::kClosed;
}

void HttpConnection::OnDeadline(const HttpTimeouts& timeouts, Clock::time_point now) {
  if (phase_ == Phase::kHead || phase_ == Phase::kBody) {
    const std::string what = phase_ == Phase::kHead ? "request head" : "request body";
    QueueResponse(
        SerializeResponse(JsonError(408, "REQUEST_TIMEOUT", what + " not received in time", true),
                          false),
        true, timeouts, now);
    if (phase_ == Phase::kWriting) deadline_ = now + Seconds(timeouts.linger_s);
    return;
  }
  Close();  // idle keep-alive, lingering, or a write that cannot progress
}

}  // namespace orcd
