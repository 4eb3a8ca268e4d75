#include "tests/integration/raw_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace orcd::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// One response from the front of `wire`; false when incomplete.
bool ParseOne(const std::string& wire, size_t* pos, RawResponse* out) {
  const size_t end = wire.find("\r\n\r\n", *pos);
  if (end == std::string::npos) return false;
  const std::string head = wire.substr(*pos, end - *pos);
  RawResponse r;
  const size_t line_end = head.find("\r\n");
  const std::string line = head.substr(0, line_end);
  if (line.rfind("HTTP/1.1 ", 0) != 0 || line.size() < 12) return false;
  r.status = std::atoi(line.c_str() + 9);
  r.reason = line.size() > 13 ? line.substr(13) : "";
  for (size_t p = line_end == std::string::npos ? head.size() : line_end + 2; p < head.size();) {
    size_t e = head.find("\r\n", p);
    if (e == std::string::npos) e = head.size();
    const std::string field = head.substr(p, e - p);
    const size_t colon = field.find(':');
    if (colon != std::string::npos) {
      size_t v = colon + 1;
      while (v < field.size() && field[v] == ' ') ++v;
      r.headers[Lower(field.substr(0, colon))] = field.substr(v);
    }
    p = e + 2;
  }
  size_t body_at = end + 4;
  if (r.status >= 100 && r.status < 200) {
    *pos = body_at;
    *out = r;
    return true;
  }
  auto field = [&r](const std::string& name) {
    const auto it = r.headers.find(name);
    return it == r.headers.end() ? std::string() : it->second;
  };
  if (Lower(field("transfer-encoding")) == "chunked") {
    for (;;) {
      const size_t size_end = wire.find("\r\n", body_at);
      if (size_end == std::string::npos) return false;
      const size_t n = std::strtoul(wire.c_str() + body_at, nullptr, 16);
      if (wire.size() < size_end + 2 + n + 2) return false;
      r.body += wire.substr(size_end + 2, n);
      body_at = size_end + 2 + n + 2;
      if (n == 0) break;
    }
  } else {
    const size_t n = std::strtoul(field("content-length").c_str(), nullptr, 10);
    if (wire.size() < body_at + n) return false;
    r.body = wire.substr(body_at, n);
    body_at += n;
  }
  *pos = body_at;
  *out = r;
  return true;
}

size_t FinalCount(const RawExchange& x) {
  return static_cast<size_t>(std::count_if(x.responses.begin(), x.responses.end(),
                                           [](const RawResponse& r) { return r.status >= 200; }));
}

}  // namespace

RawExchange ParseResponses(const std::string& wire) {
  RawExchange x;
  size_t pos = 0;
  RawResponse r;
  while (pos < wire.size() && ParseOne(wire, &pos, &r)) x.responses.push_back(r);
  x.unparsed = wire.substr(pos);
  return x;
}

int RawConnect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

RawExchange RawRoundTrip(int fd, const std::string& bytes, size_t expected_responses,
                         std::chrono::milliseconds quiet, std::chrono::milliseconds limit) {
  for (size_t sent = 0; sent < bytes.size();) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may refuse before reading everything
    sent += static_cast<size_t>(n);
  }
  std::string wire;
  bool closed = false;
  const auto deadline = Clock::now() + limit;
  auto last_data = Clock::now();
  while (!closed && Clock::now() < deadline) {
    if (FinalCount(ParseResponses(wire)) >= expected_responses &&
        Clock::now() - last_data >= quiet) {
      break;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10) <= 0) continue;
    char buf[65536];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      closed = true;
    } else {
      wire.append(buf, static_cast<size_t>(n));
      last_data = Clock::now();
    }
  }
  RawExchange x = ParseResponses(wire);
  x.closed = closed;
  return x;
}

Timed TimedGet(int port, const std::string& path) {
  const auto t0 = Clock::now();
  Timed t;
  const int fd = RawConnect(port);
  if (fd < 0) return t;
  RawExchange x =
      RawRoundTrip(fd, "GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", 1,
                   std::chrono::milliseconds(0), std::chrono::seconds(5));
  ::close(fd);
  t.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0);
  if (!x.responses.empty()) t.status = x.responses.back().status;
  return t;
}

}  // namespace orcd::testing
