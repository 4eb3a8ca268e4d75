// orcd-host under a `Type=notify` unit (packaging/orcd.service): systemd
// treats the unit as started when READY=1 arrives, so a READY sent before the
// model is loaded would let `systemctl start` (and every unit ordered after
// orcd) go on while the worker still refuses jobs. The test plays systemd: it
// owns the unix datagram socket named by NOTIFY_SOCKET and reads what the
// worker sends.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <poll.h>
#include <chrono>
#include <cstring>
#include <optional>
#include <random>
#include <string>

#include "tests/integration/worker_process.h"

namespace orcd::testing {
namespace {

using namespace std::chrono_literals;

// The receiving end of systemd's notification protocol: one datagram per
// sd_notify call, NEWLINE-separated VAR=value assignments.
class NotifySocket {
 public:
  NotifySocket() {
    path_ = "/tmp/orcd-notify-" + std::to_string(::getpid()) + "-" +
            std::to_string(std::random_device{}()) + ".sock";
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path_.c_str(), sizeof(addr.sun_path) - 1);
    bound_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~NotifySocket() {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  bool bound() const { return bound_; }
  const std::string& path() const { return path_; }

  // The next datagram, or nullopt when none arrives within `timeout`.
  std::optional<std::string> Receive(std::chrono::milliseconds timeout) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) != 1) return std::nullopt;
    char buffer[4096];
    const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
    if (n < 0) return std::nullopt;
    return std::string(buffer, static_cast<size_t>(n));
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool bound_ = false;
};

bool HasLine(const std::string& message, const std::string& line) {
  return ("\n" + message + "\n").find("\n" + line + "\n") != std::string::npos;
}

std::string HealthState(int port) {
  const auto body = Poco::JSON::Parser().parse(HttpGet(port, "/health").body);
  return body.extract<Poco::JSON::Object::Ptr>()->getValue<std::string>("state");
}

TEST(SystemdNotifyTest, ReadyOnlyOnceTheModelIsLoadedAndStoppingWhenDraining) {
  NotifySocket systemd;
  ASSERT_TRUE(systemd.bound()) << systemd.path();
  // 150 ms per load progress step (5 steps): a READY sent at start-up or
  // mid-load would be read while /health still says "starting".
  WorkerProcess worker({"--model", FixtureModel("qwen2-tiny.F16.gguf"), "--device", "cpu",
                        "--plugin-dir", ORCD_PLUGIN_DIR},
                       {{"NOTIFY_SOCKET", systemd.path()}, {"ORCD_DEBUG_LOAD_DELAY_MS", "150"}},
                       /*wait_ready=*/false);
  const int port = worker.WaitListening(30s);
  ASSERT_GT(port, 0) << worker.Logs();

  std::vector<std::string> before_ready;
  std::optional<std::string> ready;
  std::string status_at_ready;
  while (!ready) {
    const std::optional<std::string> message = systemd.Receive(60s);
    ASSERT_TRUE(message.has_value()) << "no READY=1 within 60 s\n" << worker.Logs();
    if (HasLine(*message, "READY=1")) {
      status_at_ready = HealthState(port);  // at once, as systemd would go on
      ready = message;
    } else {
      before_ready.push_back(*message);
    }
  }
  EXPECT_EQ(status_at_ready, "ready");
  ASSERT_FALSE(before_ready.empty()) << "no STATUS while loading";
  EXPECT_EQ(before_ready.front().rfind("STATUS=loading ", 0), 0u) << before_ready.front();
  EXPECT_NE(ready->find("STATUS=ready on http://"), std::string::npos) << *ready;

  worker.Signal(SIGTERM);
  const std::optional<std::string> stopping = systemd.Receive(30s);
  ASSERT_TRUE(stopping.has_value()) << worker.Logs();
  EXPECT_TRUE(HasLine(*stopping, "STOPPING=1")) << *stopping;
  EXPECT_EQ(worker.WaitExit(30s), 0);
}

// A model that cannot load: no READY=1 (systemd sees the exit, not a started
// unit), and the reason in STATUS for `systemctl status`.
TEST(SystemdNotifyTest, FailedLoadSendsNoReadyAndSaysWhy) {
  NotifySocket systemd;
  ASSERT_TRUE(systemd.bound()) << systemd.path();
  WorkerProcess worker(
      {"--model", "/nonexistent/model.gguf", "--device", "cpu", "--plugin-dir", ORCD_PLUGIN_DIR},
      {{"NOTIFY_SOCKET", systemd.path()}}, /*wait_ready=*/false);
  EXPECT_EQ(worker.WaitExit(30s), 1) << worker.Logs();
  std::string received;
  while (const std::optional<std::string> message = systemd.Receive(0ms)) {
    received += *message + "\n";
  }
  EXPECT_EQ(received.find("READY=1"), std::string::npos) << received;
  EXPECT_NE(received.find("STATUS=MODEL_LOAD_FAILED: "), std::string::npos) << received;
}

}  // namespace
}  // namespace orcd::testing
