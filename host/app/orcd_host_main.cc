// orcd-host: the worker. Start-up in the seed spec's order: device context,
// model load (progress 0/25/50/75/100 %), HTTP server, ready callback, ready.
// SIGTERM or POST /shutdown: stop accepting (503), finish the running job,
// free, exit 0 (during the model load: exit 0 at once). Exit 1: start-up
// failure; 2: bad command line or config.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/device/device_context.h"
#include "host/generation/generation_service.h"
#include "host/plugins/host_services.h"
#include "host/plugins/plugin_registry.h"
#include "host/plugins/plugin_search_path.h"
#include "host/server/ready_callback.h"
#include "host/server/worker_server.h"
#include "host/server/worker_state.h"

namespace orcd {
namespace {

constexpr int kExitStartupFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitDeviceLost = 3;  // a device error mid-job: restart the worker

// Seed-spec error codes for start-up failures.
std::string StartupErrorCode(const Error& e) {
  switch (e.code()) {
    case ErrorCode::kOutOfMemory:
      return "INSUFFICIENT_VRAM";
    case ErrorCode::kDevice:
      return "CUDA_ERROR";
    default:
      return "MODEL_LOAD_FAILED";
  }
}

// Waits for SIGTERM/SIGINT (blocked in every thread, taken here), /shutdown,
// or a lost device.
void WaitForShutdown(WorkerState& state, const sigset_t& signals) {
  const timespec tick{0, 100 * 1000 * 1000};
  while (!state.shutting_down) {
    if (state.service->DeviceLost()) {
      LogError("cuda_fatal",
               "a device error left the CUDA context unusable; exiting so the orchestrator "
               "restarts the worker",
               {{"exit_code", std::to_string(kExitDeviceLost)}});
      state.RequestShutdown();
      break;
    }
    const int sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig == SIGTERM || sig == SIGINT) {
      LogInfo("shutdown", std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT"));
      state.RequestShutdown();
    }
  }
}

// SIGTERM/SIGINT while the model loads: there is nothing to drain, so the
// process ends at once with status 0 (a load can take minutes, or spin on a
// hostile file). Destroying the watcher hands the signals back to
// WaitForShutdown; one arriving in between stays pending for it.
class LoadSignalWatcher {
 public:
  explicit LoadSignalWatcher(const sigset_t& signals)
      : thread_([this, signals] { Watch(signals); }) {}
  ~LoadSignalWatcher() {
    done_ = true;
    thread_.join();
  }

 private:
  void Watch(sigset_t signals) {
    const timespec tick{0, 50 * 1000 * 1000};
    while (!done_) {
      const int sig = sigtimedwait(&signals, nullptr, &tick);
      if (sig == SIGTERM || sig == SIGINT) {
        LogInfo("shutdown", std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") +
                                " during model load; exiting");
        std::_Exit(0);
      }
    }
  }

  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Test hook: slows each load progress step so that a test can signal mid-load.
void DebugLoadDelay() {
  static const char* v = std::getenv("ORCD_DEBUG_LOAD_DELAY_MS");
  if (v != nullptr) std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(v)));
}

// Lets the running job finish within the timeout, then cancels it.
void Drain(WorkerState& state) {
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::milliseconds(static_cast<int64_t>(state.config.shutdown_timeout_s * 1000));
  while (state.slot.busy() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (state.slot.busy()) {
    const std::string job = state.slot.current_job();
    LogWarn("shutdown", "shutdown timeout reached; cancelling the running job", {{"job_id", job}});
    state.slot.Cancel(job);
    while (state.slot.busy()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

int Run(int argc, char** argv) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any thread exists
  signal(SIGPIPE, SIG_IGN);  // a vanished client is an error return, not a signal

  WorkerConfig config;
  try {
    const CommandLine cl = ParseCommandLine(argc, argv);
    if (cl.help) {
      std::fputs(CommandLineHelp().c_str(), stdout);
      return 0;
    }
    if (cl.version) {
      std::printf("orcd-host %s (CUDA backend %s)\n", ORCD_VERSION,
                  CudaBackendBuilt() ? "built" : "not built");
      return 0;
    }
    config = ResolveWorkerConfig(cl);
  } catch (const Error& e) {
    std::fprintf(stderr, "orcd-host: %s\n%s", e.what(), CommandLineHelp().c_str());
    return kExitUsage;
  }

  Logger& log = Logger::Global();
  LogLevel level = LogLevel::kInfo;
  ParseLogLevel(config.log_level, &level);
  log.SetLevel(level);
  log.SetContext("worker_id", config.worker_id);
  log.SetContext("model_ref", config.model_path.string());
  log.SetContext("gpu_device", config.device == "cuda" ? std::to_string(config.gpu_device) : "cpu");
  LogInfo("startup", "orcd-host starting", {{"version", ORCD_VERSION}, {"device", config.device}});

  std::unique_ptr<DeviceContext> device;
  std::unique_ptr<PluginRegistry> registry;
  std::unique_ptr<InferenceService> service;
  std::optional<LoadSignalWatcher> load_watcher(std::in_place, signals);
  try {
    device = CreateDeviceContext(config.device, config.gpu_device, config.threads);
    registry = std::make_unique<PluginRegistry>(HostServices());
    registry->LoadDirectories(config.plugin_dirs.empty() ? DefaultPluginDirs()
                                                         : config.plugin_dirs);
    LogInfo("model_load_start", "loading model", {{"device_name", device->info().name}});
    service = CreateGenerationService(config, *registry, *device, [](int percent) {
      LogInfo("model_load_progress", "loading", {{"percent", std::to_string(percent)}});
      DebugLoadDelay();
    });
    LogInfo("model_load_complete", "model loaded",
            {{"quant_kind", service->facts().quant_kind},
             {"vram_bytes", std::to_string(service->facts().vram_bytes)},
             {"context_length", std::to_string(service->facts().context_length)}});
  } catch (const Error& e) {
    LogError("error", e.what(),
             {{"code", StartupErrorCode(e)},
              {"device", config.device},
              {"model_path", config.model_path.string()}});
    std::fprintf(stderr, "orcd-host: %s: %s\n", StartupErrorCode(e).c_str(), e.what());
    return kExitStartupFailed;
  }
  load_watcher.reset();

  WorkerState state(config, service.get());
  state.metrics.SetVramBytes(service->facts().vram_bytes);
  std::unique_ptr<WorkerServer> server;
  try {
    server = std::make_unique<WorkerServer>(state);
  } catch (const Error& e) {
    LogError("error", e.what(), {{"code", "STARTUP_FAILED"}});
    std::fprintf(stderr, "orcd-host: %s\n", e.what());
    return kExitStartupFailed;
  }
  const std::string uri = "http://" + config.bind_address + ":" + std::to_string(server->port());
  std::thread callback;
  if (!config.callback_url.empty()) {
    const std::string body = "{\"worker_id\":\"" + JsonEscape(config.worker_id) +
                             "\",\"model_ref\":\"" + JsonEscape(config.model_path.string()) +
                             "\",\"vram_bytes\":" + std::to_string(service->facts().vram_bytes) +
                             ",\"uri\":\"" + uri + "\"}";
    callback = std::thread([&state, url = config.callback_url, body] {
      PostReadyCallback(url, body, ReadyCallbackRetry{}, state.shutting_down);
    });
  }
  state.ready = true;
  LogInfo("ready", "worker ready", {{"uri", uri}, {"port", std::to_string(server->port())}});

  WaitForShutdown(state, signals);
  Drain(state);
  server->Stop();
  if (callback.joinable()) callback.join();
  const bool device_lost = service->DeviceLost();
  service.reset();
  registry.reset();
  device.reset();
  LogInfo("shutdown", "worker stopped");
  return device_lost ? kExitDeviceLost : 0;
}

}  // namespace
}  // namespace orcd

int main(int argc, char** argv) { return orcd::Run(argc, argv); }
