// A pool manager on loopback, as far as a worker sees one: it records every
// request it gets (method, path, body, arrival time) and answers each with
// the next status of a script (the last one repeats); "hang" statuses (0)
// accept the request and never answer.
#ifndef ORCD_TESTS_INTEGRATION_FAKE_POOL_MANAGER_H_
#define ORCD_TESTS_INTEGRATION_FAKE_POOL_MANAGER_H_

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace orcd::testing {

struct RecordedRequest {
  std::string method;
  std::string path;
  std::string body;
  std::chrono::steady_clock::time_point at;
};

class FakePoolManager {
 public:
  explicit FakePoolManager(std::vector<int> statuses);
  ~FakePoolManager();
  FakePoolManager(const FakePoolManager&) = delete;
  FakePoolManager& operator=(const FakePoolManager&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<RecordedRequest> requests() const;
  // Waits until `n` requests arrived; false on timeout.
  bool WaitForRequests(size_t n, std::chrono::milliseconds timeout) const;

 private:
  void Serve();
  void Answer(int fd);

  std::vector<int> statuses_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::vector<RecordedRequest> requests_;
  std::vector<int> hung_;  // connections left unanswered, closed at the end
  std::thread thread_;
};

}  // namespace orcd::testing

#endif  // ORCD_TESTS_INTEGRATION_FAKE_POOL_MANAGER_H_
