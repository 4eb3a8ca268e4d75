// Runs the real orcd-host as a child process on a loopback port for
// integration tests, and talks HTTP/SSE to it.
#ifndef ORCD_TESTS_INTEGRATION_WORKER_PROCESS_H_
#define ORCD_TESTS_INTEGRATION_WORKER_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace orcd::testing {

class WorkerProcess {
 public:
  // Starts orcd-host with `args` (plus --port 0 unless given) and waits for
  // its "ready" log line (unless `wait_ready` is false). `env` adds
  // environment variables.
  WorkerProcess(const std::vector<std::string>& args,
                const std::map<std::string, std::string>& env = {}, bool wait_ready = true);
  ~WorkerProcess();  // SIGKILL if still running
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  bool ready() const { return port_ > 0; }
  // For a worker started with wait_ready false: waits for its "listening"
  // log line (the HTTP server is up before the model loads) and returns the
  // port, or 0 when it did not come within `timeout`.
  int WaitListening(std::chrono::milliseconds timeout);
  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  void Signal(int sig);
  // Exit status, or nullopt if still running after `timeout`.
  std::optional<int> WaitExit(std::chrono::milliseconds timeout);
  std::string Logs() const;  // everything written to stderr so far

  // Runs orcd-host to completion (for start-up failures): exit code + output.
  static std::pair<int, std::string> RunToExit(const std::vector<std::string>& args,
                                               std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_path_;
  std::optional<int> exit_status_;
};

// Resident memory of `pid` in KiB (VmRSS), -1 when unreadable.
int64_t RssKb(pid_t pid);

struct HttpResponse {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;
};

HttpResponse HttpGet(int port, const std::string& path);
// timeout_s: how long the answer may take to start (a whole non-streamed
// answer: to arrive).
HttpResponse HttpPost(int port, const std::string& path, const std::string& body,
                      const std::map<std::string, std::string>& headers = {}, int timeout_s = 30);

struct SseEvent {
  std::string event;
  std::string data;
};

// An open SSE response read event by event.
class SseStream {
 public:
  SseStream(int port, const std::string& path, const std::string& body,
            const std::map<std::string, std::string>& headers = {});
  ~SseStream();
  int status() const { return status_; }
  const std::string& error_body() const { return error_body_; }
  // Next event, or nullopt at end of stream / timeout.
  std::optional<SseEvent> Next(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  std::vector<SseEvent> ReadAll();
  // ReadAll's last event name, or what came instead ("no events: HTTP 503 ...").
  std::string LastEvent();
  void Close();  // drops the connection (a vanishing client)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int status_ = 0;
  std::string error_body_;
};

std::string FixtureModel(const std::string& name);
bool IsValidUtf8(const std::string& s);

// A path named `name` (a config file, a model copy, a plugin directory) in a
// directory of this test process's own under the system temp dir, removed
// with everything in it when the process exits: tests leave nothing behind.
std::string TestFilePath(const std::string& name);

}  // namespace orcd::testing

#endif  // ORCD_TESTS_INTEGRATION_WORKER_PROCESS_H_
