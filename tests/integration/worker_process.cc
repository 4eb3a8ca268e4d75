#include "tests/integration/worker_process.h"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace orcd::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string TempLogPath() {
  std::random_device rd;
  return "/tmp/orcd-worker-" + std::to_string(::getpid()) + "-" + std::to_string(rd()) + ".log";
}

pid_t Spawn(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
            const std::string& log_path) {
  const std::string exe = std::string(ORCD_BIN_DIR) + "/orcd-host";
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(exe.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

}  // namespace

std::string FixtureModel(const std::string& name) {
  return std::string(ORCD_FIXTURES_DIR) + "/models/" + name;
}

bool IsValidUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80         ? 1
                       : (c >> 5) == 6  ? 2
                       : (c >> 4) == 14 ? 3
                       : (c >> 3) == 30 ? 4
                                        : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    }
    i += len;
  }
  return true;
}

WorkerProcess::WorkerProcess(const std::vector<std::string>& args,
                             const std::map<std::string, std::string>& env, bool wait_ready)
    : log_path_(TempLogPath()) {
  std::vector<std::string> full = args;
  bool has_port = false;
  for (const auto& a : args) has_port |= (a == "--port");
  if (!has_port) {
    full.push_back("--port");
    full.push_back("0");
  }
  pid_ = Spawn(full, env, log_path_);
  if (!wait_ready) return;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string logs = ReadFile(log_path_);
    if (auto at = logs.find("\"event\":\"ready\""); at != std::string::npos) {
      const auto p = logs.find("\"port\":\"", at);
      if (p != std::string::npos) {
        port_ = std::atoi(logs.c_str() + p + 8);
        return;
      }
    }
    if (WaitExit(std::chrono::milliseconds(0))) return;  // died during start-up
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

WorkerProcess::~WorkerProcess() {
  if (!exit_status_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    WaitExit(std::chrono::seconds(5));
  }
  ::unlink(log_path_.c_str());
}

void WorkerProcess::Signal(int sig) {
  if (!exit_status_) ::kill(pid_, sig);
}

std::optional<int> WorkerProcess::WaitExit(std::chrono::milliseconds timeout) {
  if (exit_status_) return exit_status_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  do {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exit_status_;
    }
    if (timeout.count() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  } while (std::chrono::steady_clock::now() < deadline);
  return std::nullopt;
}

std::string WorkerProcess::Logs() const { return ReadFile(log_path_); }

int WorkerProcess::WaitListening(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string logs = ReadFile(log_path_);
    if (auto at = logs.find("\"event\":\"listening\""); at != std::string::npos) {
      const auto p = logs.find("\"port\":\"", at);
      if (p != std::string::npos) return port_ = std::atoi(logs.c_str() + p + 8);
    }
    if (WaitExit(std::chrono::milliseconds(0))) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return 0;
}

std::pair<int, std::string> WorkerProcess::RunToExit(const std::vector<std::string>& args,
                                                     std::chrono::milliseconds timeout) {
  const std::string log = TempLogPath();
  const pid_t pid = Spawn(args, {}, log);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return {-1, ReadFile(log)};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::string out = ReadFile(log);
  ::unlink(log.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

namespace {

HttpResponse Send(int port, const std::string& method, const std::string& path,
                  const std::string* body, const std::map<std::string, std::string>& headers = {},
                  int timeout_s = 30) {
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
  session.setTimeout(Poco::Timespan(timeout_s, 0));
  Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
  for (const auto& [k, v] : headers) request.set(k, v);
  if (body) {
    request.setContentType("application/json");
    request.setContentLength(static_cast<std::streamsize>(body->size()));
    session.sendRequest(request) << *body;
  } else {
    session.sendRequest(request);
  }
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  HttpResponse r;
  r.status = static_cast<int>(response.getStatus());
  for (const auto& [k, v] : response) r.headers[k] = v;
  std::stringstream ss;
  ss << in.rdbuf();
  r.body = ss.str();
  return r;
}

}  // namespace

int64_t RssKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

HttpResponse HttpGet(int port, const std::string& path) { return Send(port, "GET", path, nullptr); }
HttpResponse HttpPost(int port, const std::string& path, const std::string& body,
                      const std::map<std::string, std::string>& headers, int timeout_s) {
  return Send(port, "POST", path, &body, headers, timeout_s);
}

struct SseStream::Impl {
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  std::istream* in = nullptr;
};

SseStream::SseStream(int port, const std::string& path, const std::string& body,
                     const std::map<std::string, std::string>& headers)
    : impl_(std::make_unique<Impl>()) {
  impl_->session =
      std::make_unique<Poco::Net::HTTPClientSession>("127.0.0.1", static_cast<Poco::UInt16>(port));
  impl_->session->setTimeout(Poco::Timespan(30, 0));
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, path,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  request.setContentType("application/json");
  request.setContentLength(static_cast<std::streamsize>(body.size()));
  for (const auto& [k, v] : headers) request.set(k, v);
  impl_->session->sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  impl_->in = &impl_->session->receiveResponse(response);
  status_ = static_cast<int>(response.getStatus());
  if (status_ != 200) {
    std::stringstream ss;
    ss << impl_->in->rdbuf();
    error_body_ = ss.str();
    impl_->in = nullptr;
  }
}

SseStream::~SseStream() = default;

std::optional<SseEvent> SseStream::Next(std::chrono::milliseconds timeout) {
  if (!impl_->in) return std::nullopt;
  impl_->session->setTimeout(
      Poco::Timespan(timeout.count() / 1000, (timeout.count() % 1000) * 1000));
  SseEvent ev;
  std::string line;
  try {
    while (std::getline(*impl_->in, line)) {
      if (line.empty()) {
        if (!ev.event.empty() || !ev.data.empty()) return ev;
        continue;
      }
      if (line.rfind("event: ", 0) == 0) ev.event = line.substr(7);
      if (line.rfind("data: ", 0) == 0) ev.data += line.substr(6);
    }
  } catch (const Poco::Exception&) {
  }
  impl_->in = nullptr;
  return std::nullopt;
}

std::vector<SseEvent> SseStream::ReadAll() {
  std::vector<SseEvent> all;
  while (auto e = Next()) all.push_back(*e);
  return all;
}

std::string SseStream::LastEvent() {
  const std::vector<SseEvent> all = ReadAll();
  if (all.empty()) return "no events: HTTP " + std::to_string(status_) + " " + error_body_;
  return all.back().event;
}

void SseStream::Close() {
  impl_->in = nullptr;
  impl_->session->abort();
}

namespace {

// The process's scratch directory: made on first use, removed at exit (a
// function-local static's destructor), so a crashed test leaves at most one.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "orcd-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

std::string TestFilePath(const std::string& name) {
  static const ScratchDir dir;
  return (dir.path() / name).string();
}

}  // namespace orcd::testing
