// orcd-host: the worker. Start-up: the HTTP server first (so that /health
// shows "starting" and the load progress), device context, model load
// (progress 0/25/50/75/100 %), the ready callback when configured, then
// "ready". SIGTERM or POST /shutdown: stop accepting (503), finish the
// running job, free, exit 0 (during the model load: exit 0 at once). Exit 1:
// start-up failure (including a ready callback never acknowledged); 2: bad
// command line or config; 3: a device error mid-job.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

#include "host/app/debug_device.h"
#include "host/app/systemd_notify.h"
#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/device/device_context.h"
#include "host/generation/generation_service.h"
#include "host/plugins/host_services.h"
#include "host/plugins/plugin_listing.h"
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
      state.SetPhase(WorkerPhase::kFailed);
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

// The ready callback (WORK-3014), posted from a thread while this one keeps
// taking SIGTERM/SIGINT (which end the retries). True once acknowledged.
bool RegisterWithPoolManager(WorkerState& state, const std::string& uri, uint64_t vram_bytes,
                             const sigset_t& signals) {
  const WorkerConfig& config = state.config;
  const std::string body = "{\"worker_id\":\"" + JsonEscape(config.worker_id) +
                           "\",\"model_ref\":\"" + JsonEscape(config.ModelRef()) +
                           "\",\"vram_bytes\":" + std::to_string(vram_bytes) + ",\"uri\":\"" +
                           JsonEscape(uri) + "\"}";
  ReadyCallbackRetry retry;
  retry.max_attempts = config.callback_attempts;
  std::atomic<bool> done{false};
  bool acknowledged = false;
  std::thread poster([&] {
    acknowledged =
        PostReadyCallback(ReadyCallbackUrl(config.callback_url), body, retry, state.shutting_down);
    done = true;
  });
  const timespec tick{0, 50 * 1000 * 1000};
  while (!done) {
    const int sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig == SIGTERM || sig == SIGINT) {
      LogInfo("shutdown", "signal during the ready callback; exiting");
      state.RequestShutdown();
    }
  }
  poster.join();
  return acknowledged;
}

// Lets the accepted jobs (running and waiting) finish within the timeout,
// then cancels those left.
void Drain(WorkerState& state) {
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::milliseconds(static_cast<int64_t>(state.config.shutdown_timeout_s * 1000));
  while (state.jobs.held() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (state.jobs.held() > 0) {
    const int n = state.jobs.CancelAll();
    LogWarn("shutdown", "shutdown timeout reached; cancelling the jobs left",
            {{"jobs", std::to_string(n)}});
    while (state.jobs.held() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
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
    if (cl.list_plugins) {
      const WorkerConfig listed = ApplyCommandLine(cl);
      return PrintPluginListing(listed.plugin_dirs.empty() ? DefaultPluginDirs()
                                                           : listed.plugin_dirs);
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
  log.SetContext("model_ref", config.ModelRef());
  log.SetContext("gpu_device", config.device == "cuda" ? std::to_string(config.gpu_device) : "cpu");
  LogInfo("startup", "orcd-host starting", {{"version", ORCD_VERSION}, {"device", config.device}});
  std::string callback_problem;
  if (!config.callback_url.empty() &&
      !CallbackUrlSupported(config.callback_url, &callback_problem)) {
    LogError("error", callback_problem, {{"code", "WORKER_START_FAILED"}});
    std::fprintf(stderr, "orcd-host: server.callback_url: %s\n", callback_problem.c_str());
    return kExitUsage;
  }

  // Listening from the start: /health answers "starting" with the progress.
  WorkerState state(config);
  std::unique_ptr<WorkerServer> server;
  try {
    server = std::make_unique<WorkerServer>(state);
  } catch (const Error& e) {
    LogError("error", e.what(), {{"code", "WORKER_START_FAILED"}});
    std::fprintf(stderr, "orcd-host: %s\n", e.what());
    return kExitStartupFailed;
  }
  const std::string uri = AdvertisedUri(config, server->port());
  if (!config.callback_url.empty() && config.advertise_url.empty() &&
      (config.bind_address == "0.0.0.0" || config.bind_address == "::")) {
    LogWarn("advertise_url_unset", "bound to a wildcard address: the pool manager is sent " + uri +
                                       ", which it cannot dial; set server.advertise_url");
  }
  LogInfo("listening", "HTTP server up; loading the model",
          {{"uri", uri}, {"port", std::to_string(server->port())}});
  NotifySystemdStatus("loading " + config.model_path.string());

  std::unique_ptr<DeviceContext> device;
  std::unique_ptr<PluginRegistry> registry;
  std::unique_ptr<InferenceService> service;
  std::optional<LoadSignalWatcher> load_watcher(std::in_place, signals);
  try {
    GenerationOptions options = GenerationOptionsFrom(config);
    if (config.device == "cuda") options.device_runtime = DebugDeviceRuntime();
    // The emulated device has no cuBLAS workspace or graphs to keep room for.
    if (options.device_runtime) options.vram_headroom_bytes = -1;
    // With a device runtime given (the debug hook), no CUDA context is made.
    device = CreateDeviceContext(options.device_runtime ? "cpu" : config.device, config.gpu_device,
                                 config.threads);
    registry = std::make_unique<PluginRegistry>(HostServices());
    registry->LoadDirectories(config.plugin_dirs.empty() ? DefaultPluginDirs()
                                                         : config.plugin_dirs);
    LogInfo("model_load_start", "loading model", {{"device_name", device->info().name}});
    service = CreateGenerationService(
        options, *registry, *device, [&state, last_percent = -1](int percent) mutable {
          state.load_percent = percent;
          // Once per step (a backend may report a step twice).
          if (percent == last_percent) return;
          last_percent = percent;
          LogInfo("model_load_progress", "loading", {{"percent", LogValue::Number(percent)}});
          DebugLoadDelay();
        });
    LogInfo("model_load_complete", "model loaded",
            {{"quant_kind", service->facts().quant_kind},
             {"vram_bytes", std::to_string(service->facts().vram_bytes)},
             {"context_length", std::to_string(service->facts().context_length)}});
  } catch (const Error& e) {
    state.SetPhase(WorkerPhase::kFailed);
    LogError("error", e.what(),
             {{"code", StartupErrorCode(e)},
              {"device", config.device},
              {"model_path", config.model_path.string()}});
    std::fprintf(stderr, "orcd-host: %s: %s\n", StartupErrorCode(e).c_str(), e.what());
    NotifySystemdStatus(StartupErrorCode(e) + ": " + e.what());
    return kExitStartupFailed;
  }
  load_watcher.reset();
  state.PublishService(service.get());
  state.metrics.SetQuantKind(service->facts().quant_kind);
  state.metrics.SetVramBytes(service->VramBytesUsed());

  if (!config.callback_url.empty() &&
      !RegisterWithPoolManager(state, uri, service->VramBytesUsed(), signals)) {
    server->Stop();
    if (state.shutting_down) return 0;  // SIGTERM while registering: nothing to drain
    state.SetPhase(WorkerPhase::kFailed);
    LogError(
        "error", "the pool manager never acknowledged the ready callback; exiting",
        {{"code", "WORKER_START_FAILED"}, {"attempts", std::to_string(config.callback_attempts)}});
    std::fprintf(stderr, "orcd-host: WORKER_START_FAILED: ready callback to %s not acknowledged\n",
                 ReadyCallbackUrl(config.callback_url).c_str());
    return kExitStartupFailed;
  }
  if (!state.shutting_down) state.SetPhase(WorkerPhase::kReady);
  LogInfo("ready", "worker ready",
          {{"uri", uri},
           {"port", std::to_string(server->port())},
           {"vram_bytes", std::to_string(service->VramBytesUsed())}});
  NotifySystemdReady("ready on " + uri);

  WaitForShutdown(state, signals);
  NotifySystemdStopping("draining");
  Drain(state);
  server->Stop();
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
