#include "tests/integration/fake_pool_manager.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace orcd::testing {

FakePoolManager::FakePoolManager(std::vector<int> statuses) : statuses_(std::move(statuses)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 16) != 0) {
    throw std::runtime_error("fake pool manager: cannot listen");
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { Serve(); });
}

FakePoolManager::~FakePoolManager() {
  stop_ = true;
  thread_.join();
  ::close(listen_fd_);
  for (int fd : hung_) ::close(fd);
}

std::vector<RecordedRequest> FakePoolManager::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

bool FakePoolManager::WaitForRequests(size_t n, std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (requests().size() >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

void FakePoolManager::Serve() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd >= 0) Answer(fd);
  }
}

// One request per connection: the head, then Content-Length bytes of body.
void FakePoolManager::Answer(int fd) {
  std::string data;
  char buf[4096];
  size_t head_end = std::string::npos;
  size_t want = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < give_up) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (head_end == std::string::npos && (head_end = data.find("\r\n\r\n")) != std::string::npos) {
      const auto cl = data.find("Content-Length: ");
      want = cl == std::string::npos ? 0 : std::strtoul(data.c_str() + cl + 16, nullptr, 10);
    }
    if (head_end != std::string::npos && data.size() >= head_end + 4 + want) break;
  }
  RecordedRequest r;
  r.at = std::chrono::steady_clock::now();
  const auto sp1 = data.find(' '), sp2 = data.find(' ', sp1 + 1);
  if (sp1 != std::string::npos && sp2 != std::string::npos) {
    r.method = data.substr(0, sp1);
    r.path = data.substr(sp1 + 1, sp2 - sp1 - 1);
  }
  if (head_end != std::string::npos) r.body = data.substr(head_end + 4);
  int status;
  {
    std::lock_guard lock(mu_);
    status = statuses_.empty() ? 200 : statuses_[std::min(requests_.size(), statuses_.size() - 1)];
    requests_.push_back(std::move(r));
  }
  if (status == 0) {
    hung_.push_back(fd);
    return;
  }
  const std::string response = "HTTP/1.1 " + std::to_string(status) +
                               " X\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
  ::send(fd, response.data(), response.size(), MSG_NOSIGNAL);
  ::close(fd);
}

}  // namespace orcd::testing
