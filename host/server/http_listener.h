// The HTTP/1.1 server under orcd's endpoints. One I/O thread owns every
// connection: it accepts, reads request heads and bodies without blocking
// under short deadlines, refuses malformed framing, and answers cheap routes
// (health, readiness, metrics, 404/405/401) itself, so those answer within
// milliseconds whatever other clients do. Complete requests for the other
// routes go to a small pool of handler threads; when every one is taken the
// request is refused at once (503). Connections are bounded: at the limit the
// connection waiting longest for its request (not one inside a handler) is
// closed to admit the new one.
#ifndef ORCD_HOST_SERVER_HTTP_LISTENER_H_
#define ORCD_HOST_SERVER_HTTP_LISTENER_H_

#include <Poco/AutoPtr.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/SocketAddress.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "host/server/http_connection.h"

namespace orcd {

struct HttpListenerOptions {
  std::string bind_address = "127.0.0.1";
  int port = 0;
  int max_connections = 64;
  int handler_threads = 8;
  size_t max_body_bytes = 1 << 20;
  HttpTimeouts timeouts;
};

struct HttpRoutes {
  // Answers a request (its head and whole body) on the I/O thread (must not
  // block), or nullopt to hand it to a handler thread.
  std::function<std::optional<InlineResponse>(const RequestHead&, const std::string& body)>
      answer_inline;
  // The handler for a request answer_inline declined.
  std::function<Poco::Net::HTTPRequestHandler*(const Poco::Net::HTTPServerRequest&)> make_handler;
};

class HttpListener {
 public:
  // Binds (without SO_REUSEPORT: a second worker on the port fails here) and
  // starts serving. Throws orcd::Error(kIo) naming the address on failure.
  HttpListener(HttpListenerOptions options, HttpRoutes routes);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  int port() const { return port_; }
  // Stops accepting, closes idle connections and joins the threads (a
  // handler still running is waited for).
  void Stop();

 private:
  using Clock = HttpConnection::Clock;

  void Bind();
  void IoLoop();
  void AcceptAll(Clock::time_point now);
  void Admit(int fd, const sockaddr_storage& peer, socklen_t peer_len, Clock::time_point now);
  void Service(HttpConnection& c, short revents, Clock::time_point now);
  void Process(HttpConnection& c, Clock::time_point now);
  void Route(HttpConnection& c, Clock::time_point now);
  void Answer(HttpConnection& c, const InlineResponse& response, Clock::time_point now);
  void TakeReturned(Clock::time_point now);
  void HandlerLoop();
  bool RunExchange(HttpConnection& c);
  void Wake();

  const HttpListenerOptions options_;
  const HttpRoutes routes_;
  int listen_fd_ = -1;
  int wake_fds_[2] = {-1, -1};
  int port_ = 0;
  Poco::Net::SocketAddress server_address_;
  Poco::AutoPtr<Poco::Net::HTTPServerParams> params_;
  uint64_t next_serial_ = 0;
  std::vector<std::unique_ptr<HttpConnection>> connections_;  // I/O thread only

  std::mutex mu_;
  std::condition_variable work_cv_;
  std::deque<HttpConnection*> queue_;                      // awaiting a handler
  std::deque<std::pair<HttpConnection*, bool>> returned_;  // (connection, keep-alive)
  int busy_handlers_ = 0;
  bool stopping_ = false;

  std::thread io_thread_;
  std::vector<std::thread> handlers_;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_HTTP_LISTENER_H_
