// One client connection as the HTTP I/O thread sees it: bytes read without
// blocking, a request head and body assembled under deadlines, output queued
// and written without blocking. A request goes to a handler thread only once
// it is complete, so a slow or idle client never holds a handler thread.
#ifndef ORCD_HOST_SERVER_HTTP_CONNECTION_H_
#define ORCD_HOST_SERVER_HTTP_CONNECTION_H_

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "host/server/chunked_decoder.h"
#include "host/server/http_request_head.h"
#include "host/server/http_response.h"

namespace orcd {

// Seconds as a steady-clock duration.
std::chrono::steady_clock::duration Seconds(double s);

struct HttpTimeouts {
  double idle_s = 5;    // a kept-alive connection waiting for its next request
  double header_s = 5;  // from a connection's (or request's) first byte to its empty line
  double body_s = 10;   // from the head to the last body byte
  double send_s = 30;   // a client that stops reading its response
  double linger_s = 2;  // draining input after an error, so the client reads our answer
};

class HttpConnection {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Phase {
    kIdle,        // waiting for a request's first byte
    kHead,        // reading the request head
    kBody,        // reading the body
    kDispatched,  // a handler thread owns the socket
    kWriting,     // an inline response is being written
    kLingering,   // write side shut, draining input before close
    kClosed,
  };
  enum class Event { kNeedMore, kRequestReady, kRejected };

  HttpConnection(int fd, const sockaddr_storage& peer, socklen_t peer_len, uint64_t serial);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  int fd() const { return fd_; }
  uint64_t serial() const { return serial_; }
  Phase phase() const { return phase_; }
  Clock::time_point deadline() const { return deadline_; }
  // When the connection last started waiting for a request (accept, or the
  // end of its previous response): the oldest waiter is closed first when
  // connections run out, so fresh clients (a health probe) are kept.
  Clock::time_point waiting_since() const { return waiting_since_; }
  const sockaddr_storage& peer() const { return peer_; }
  socklen_t peer_len() const { return peer_len_; }
  bool wants_read() const;
  bool wants_write() const { return out_pos_ < out_.size(); }

  // Reads what the socket holds now (bounded per call); notes end of input.
  void ReadAvailable();
  // Parses buffered input. kRequestReady: head() and TakeBody() hold the
  // request; kRejected: rejection() says why (the caller answers and closes).
  Event Advance(const HttpTimeouts& timeouts, size_t max_body_bytes, Clock::time_point now);
  const RequestHead& head() const { return head_; }
  std::string TakeBody() { return std::move(body_); }
  const std::string& body() const { return body_; }  // the request's, once it is ready
  const HttpRejection& rejection() const { return rejection_; }
  bool peer_closed() const { return peer_closed_; }
  // True when the peer ended its input before a complete request arrived.
  bool abandoned() const;
  // Abandoned inside a request (head bytes or a body short of its length):
  // the client may still read, so it is told why (400) before the close.
  bool truncated() const;

  // Queues bytes to write; kWriting until written, then idle (or lingering
  // when `close_after`).
  void QueueResponse(std::string bytes, bool close_after, const HttpTimeouts& timeouts,
                     Clock::time_point now);
  // Writes queued bytes without blocking; moves on once all are out.
  void WriteAvailable(const HttpTimeouts& timeouts, Clock::time_point now);

  // A new connection: its first byte is due within the header timeout.
  void ExpectFirstRequest(const HttpTimeouts& timeouts, Clock::time_point now) {
    deadline_ = now + Seconds(timeouts.header_s);
    waiting_since_ = now;
  }
  void MarkDispatched() { phase_ = Phase::kDispatched; }
  // After a handler: ready for the next request, or closing.
  void Resume(bool keep_alive, const HttpTimeouts& timeouts, Clock::time_point now);
  // Half-closes and drains input for a while, so an error response is read
  // before the close (closing with unread input would reset the connection).
  void StartLinger(const HttpTimeouts& timeouts, Clock::time_point now);
  void Close();
  // Called once the deadline has passed; may queue a 408.
  void OnDeadline(const HttpTimeouts& timeouts, Clock::time_point now);
  bool has_buffered_input() const { return !in_.empty(); }

 private:
  void Reject(int status, std::string message);

  int fd_;
  sockaddr_storage peer_;
  socklen_t peer_len_;
  uint64_t serial_;
  Phase phase_ = Phase::kIdle;
  Clock::time_point deadline_;
  Clock::time_point waiting_since_;
  bool peer_closed_ = false;
  bool close_after_write_ = false;
  std::string in_;
  RequestHead head_;
  std::string body_;
  std::optional<ChunkedDecoder> chunked_;
  HttpRejection rejection_;
  std::string out_;
  size_t out_pos_ = 0;
  size_t lingered_bytes_ = 0;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_HTTP_CONNECTION_H_
