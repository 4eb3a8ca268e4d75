#include "host/server/http_listener.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/server/http_exchange.h"

namespace orcd {
namespace {

void SetBlocking(int fd, bool blocking) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK);
}

void SetSendTimeout(int fd, double seconds) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(seconds);
  tv.tv_usec = static_cast<suseconds_t>((seconds - static_cast<double>(tv.tv_sec)) * 1e6);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// Protocol errors: the status with a JSON body, then the connection closes.
InlineResponse ProtocolError(const HttpRejection& r) {
  const bool too_large = r.status == 413;
  InlineResponse response =
      JsonError(r.status, too_large ? "INVALID_REQUEST" : "BAD_HTTP_REQUEST", r.message, false);
  response.close = true;
  return response;
}

InlineResponse Overloaded(const std::string& why) {
  InlineResponse r = JsonError(503, "SERVER_OVERLOADED", why, true);
  r.fields.emplace_back("Retry-After", "1");
  r.close = true;
  return r;
}

}  // namespace

HttpListener::HttpListener(HttpListenerOptions options, HttpRoutes routes)
    : options_(std::move(options)),
      routes_(std::move(routes)),
      params_(new Poco::Net::HTTPServerParams) {
  Bind();
  if (::pipe2(wake_fds_, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(listen_fd_);
    throw Error(ErrorCode::kIo, std::string("pipe: ") + std::strerror(errno));
  }
  io_thread_ = std::thread([this] { IoLoop(); });
  for (int i = 0; i < options_.handler_threads; ++i) {
    handlers_.emplace_back([this] { HandlerLoop(); });
  }
}

HttpListener::~HttpListener() { Stop(); }

void HttpListener::Bind() {
  const std::string where = options_.bind_address + ":" + std::to_string(options_.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options_.port);
  if (const int rc = ::getaddrinfo(options_.bind_address.c_str(), port.c_str(), &hints, &found);
      rc != 0) {
    throw Error(ErrorCode::kIo, "cannot listen on " + where + ": " + ::gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, ::freeaddrinfo);
  listen_fd_ = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0) throw Error(ErrorCode::kIo, "socket: " + std::string(std::strerror(errno)));
  // SO_REUSEADDR only lets a restarted worker bind past TIME_WAIT; on Linux it
  // never lets two sockets listen on one port (SO_REUSEPORT would, and is not set).
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(listen_fd_, found->ai_addr, found->ai_addrlen) != 0 ||
      ::listen(listen_fd_, 128) != 0) {
    const int err = errno;
    ::close(listen_fd_);
    throw Error(ErrorCode::kIo,
                "cannot listen on " + where + ": " + std::strerror(err) +
                    (err == EADDRINUSE ? " (is another worker on this port?)" : ""));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  server_address_ = Poco::Net::SocketAddress(reinterpret_cast<sockaddr*>(&bound), len);
  port_ = server_address_.port();
}

void HttpListener::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  Wake();
  work_cv_.notify_all();
  for (auto& t : handlers_) t.join();
  if (io_thread_.joinable()) io_thread_.join();
  connections_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  for (int& fd : wake_fds_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  listen_fd_ = -1;
}

void HttpListener::Wake() {
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fds_[1], &byte, 1);  // full pipe: already woken
}

void HttpListener::IoLoop() {
  std::vector<pollfd> fds;
  std::vector<HttpConnection*> polled;
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) break;
    }
    Clock::time_point now = Clock::now();
    Clock::time_point next = now + std::chrono::seconds(1);
    fds.assign({{wake_fds_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}});
    polled.clear();
    for (const auto& c : connections_) {
      if (c->phase() == HttpConnection::Phase::kDispatched) continue;
      const short events =
          static_cast<short>((c->wants_read() ? POLLIN : 0) | (c->wants_write() ? POLLOUT : 0));
      fds.push_back({c->fd(), events, 0});
      polled.push_back(c.get());
      next = std::min(next, c->deadline());
    }
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(0, wait)));
    now = Clock::now();
    if (ready > 0) {
      if (fds[0].revents) {
        char drain[64];
        while (::read(wake_fds_[0], drain, sizeof drain) > 0) {
        }
      }
      for (size_t i = 0; i < polled.size(); ++i) {
        if (fds[i + 2].revents) Service(*polled[i], fds[i + 2].revents, now);
      }
    }
    TakeReturned(now);
    if (ready > 0 && (fds[1].revents & POLLIN)) AcceptAll(now);
    for (const auto& c : connections_) {
      if (c->phase() != HttpConnection::Phase::kDispatched &&
          c->phase() != HttpConnection::Phase::kClosed && c->deadline() <= now) {
        c->OnDeadline(options_.timeouts, now);
      }
    }
    std::erase_if(connections_, [](const std::unique_ptr<HttpConnection>& c) {
      return c->phase() == HttpConnection::Phase::kClosed;
    });
  }
  // Stopping: the handler threads are joined by Stop(); idle connections close.
  std::erase_if(connections_, [](const std::unique_ptr<HttpConnection>& c) {
    return c->phase() != HttpConnection::Phase::kDispatched;
  });
}

void HttpListener::AcceptAll(Clock::time_point now) {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN, or out of descriptors: retried on the next wake
    }
    Admit(fd, peer, len, now);
  }
}

void HttpListener::Admit(int fd, const sockaddr_storage& peer, socklen_t peer_len,
                         Clock::time_point now) {
  if (static_cast<int>(connections_.size()) >= options_.max_connections) {
    // Make room by closing the connection that has waited longest for (or
    // on) its request, leaving handler threads alone: a flood of idle or slow
    // clients cannot lock out a health check, which arrives and is answered
    // at once.
    HttpConnection* victim = nullptr;
    for (const auto& c : connections_) {
      const auto phase = c->phase();
      if (phase == HttpConnection::Phase::kDispatched || phase == HttpConnection::Phase::kClosed) {
        continue;
      }
      if (!victim || c->waiting_since() < victim->waiting_since()) victim = c.get();
    }
    if (!victim) {
      const std::string refusal = SerializeResponse(Overloaded("too many connections"), false);
      [[maybe_unused]] const ssize_t n =
          ::send(fd, refusal.data(), refusal.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      ::close(fd);
      return;
    }
    victim->Close();
    std::erase_if(connections_, [](const std::unique_ptr<HttpConnection>& c) {
      return c->phase() == HttpConnection::Phase::kClosed;
    });
  }
  auto c = std::make_unique<HttpConnection>(fd, peer, peer_len, next_serial_++);
  c->ExpectFirstRequest(options_.timeouts, now);
  // Clients send their request with the connection: answer it right away.
  c->ReadAvailable();
  Process(*c, now);
  connections_.push_back(std::move(c));
}

void HttpListener::Service(HttpConnection& c, short revents, Clock::time_point now) {
  if (c.phase() == HttpConnection::Phase::kClosed) return;  // evicted this round
  if ((revents & POLLOUT) || ((revents & (POLLERR | POLLHUP)) && c.wants_write())) {
    c.WriteAvailable(options_.timeouts, now);
  }
  if (c.phase() == HttpConnection::Phase::kClosed) return;
  if (c.wants_read() && (revents & (POLLIN | POLLERR | POLLHUP))) {
    c.ReadAvailable();
    if (c.phase() == HttpConnection::Phase::kLingering) {
      if (c.peer_closed()) c.Close();
      return;
    }
  }
  Process(c, now);
}

void HttpListener::Process(HttpConnection& c, Clock::time_point now) {
  while (c.phase() == HttpConnection::Phase::kIdle || c.phase() == HttpConnection::Phase::kHead ||
         c.phase() == HttpConnection::Phase::kBody) {
    const HttpConnection::Event event = c.Advance(options_.timeouts, options_.max_body_bytes, now);
    if (event == HttpConnection::Event::kRejected) {
      Answer(c, ProtocolError(c.rejection()), now);
      return;
    }
    if (event == HttpConnection::Event::kNeedMore) {
      if (c.wants_write()) c.WriteAvailable(options_.timeouts, now);  // 100 Continue
      if (c.truncated()) {
        const bool in_body = c.phase() == HttpConnection::Phase::kBody;
        Answer(c,
               ProtocolError({400, in_body ? "the request body ended before its declared length"
                                           : "the connection ended inside the request head"}),
               now);
        return;
      }
      if (c.abandoned()) c.Close();
      return;
    }
    Route(c, now);
  }
}

void HttpListener::Route(HttpConnection& c, Clock::time_point now) {
  if (std::optional<InlineResponse> inline_response = routes_.answer_inline(c.head(), c.body())) {
    Answer(c, *inline_response, now);
    return;
  }
  {
    std::lock_guard lock(mu_);
    if (static_cast<int>(queue_.size()) + busy_handlers_ < options_.handler_threads) {
      c.MarkDispatched();
      queue_.push_back(&c);
      work_cv_.notify_one();
      return;
    }
  }
  Answer(c, Overloaded("every request handler is busy"), now);
}

void HttpListener::Answer(HttpConnection& c, const InlineResponse& response,
                          Clock::time_point now) {
  const bool keep_alive = c.head().keep_alive && !response.close && !c.peer_closed();
  c.QueueResponse(SerializeResponse(response, keep_alive), !keep_alive, options_.timeouts, now);
}

void HttpListener::TakeReturned(Clock::time_point now) {
  std::deque<std::pair<HttpConnection*, bool>> done;
  {
    std::lock_guard lock(mu_);
    done.swap(returned_);
  }
  for (auto [c, keep_alive] : done) {
    SetBlocking(c->fd(), false);
    c->Resume(keep_alive && !c->peer_closed(), options_.timeouts, now);
    Process(*c, now);  // a pipelined request may be waiting in the buffer
  }
}

void HttpListener::HandlerLoop() {
  for (;;) {
    HttpConnection* c = nullptr;
    {
      std::unique_lock lock(mu_);
      work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      c = queue_.front();
      queue_.pop_front();
      ++busy_handlers_;
    }
    const bool keep_alive = RunExchange(*c);
    {
      std::lock_guard lock(mu_);
      --busy_handlers_;
      returned_.emplace_back(c, keep_alive);
    }
    Wake();
  }
}

bool HttpListener::RunExchange(HttpConnection& c) {
  SetBlocking(c.fd(), true);
  SetSendTimeout(c.fd(), options_.timeouts.send_s);
  ExchangeResponse response(c.fd(), c.head().keep_alive && !c.peer_closed(),
                            c.head().minor_version == 0);
  ExchangeRequest request(
      c.head(), c.TakeBody(), response, c.fd(),
      Poco::Net::SocketAddress(reinterpret_cast<const sockaddr*>(&c.peer()), c.peer_len()),
      server_address_, *params_);
  try {
    std::unique_ptr<Poco::Net::HTTPRequestHandler> handler(routes_.make_handler(request));
    handler->handleRequest(request, response);
  } catch (const std::exception& e) {
    // The message may quote client input: bounded before it is logged.
    LogError("http_handler_failed", std::string(e.what()).substr(0, 200),
             {{"path", c.head().path.substr(0, 100)}});
  } catch (...) {
    LogError("http_handler_failed", "unknown exception", {{"path", c.head().path.substr(0, 100)}});
  }
  if (!response.sent()) {
    const InlineResponse r = JsonError(500, "INTERNAL", "internal error", false);
    response.setStatusAndReason(Poco::Net::HTTPResponse::HTTP_INTERNAL_SERVER_ERROR);
    response.setContentType(r.content_type);
    response.setContentLength(static_cast<std::streamsize>(r.body.size()));
    response.setKeepAlive(false);
    response.send() << r.body;
  }
  return response.Finish();
}

}  // namespace orcd
