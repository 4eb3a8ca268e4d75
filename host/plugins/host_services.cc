#include "host/plugins/host_services.h"

#include <atomic>
#include <cstdlib>
#include <new>

#include "host/common/logger.h"

// The ABI's opaque error type, defined only inside the host.
struct orcd_error {
  orcd_status code;
  std::string message;
};

namespace orcd {
namespace {

std::atomic<orcd_backend> g_backend{ORCD_BACKEND_CPU};
std::atomic<void*> g_stream{nullptr};

void ServiceLog(orcd_log_level level, const char* plugin, const char* message) {
  LogLevel l = LogLevel::kInfo;
  switch (level) {
    case ORCD_LOG_DEBUG:
      l = LogLevel::kDebug;
      break;
    case ORCD_LOG_INFO:
      l = LogLevel::kInfo;
      break;
    case ORCD_LOG_WARN:
      l = LogLevel::kWarn;
      break;
    case ORCD_LOG_ERROR:
      l = LogLevel::kError;
      break;
  }
  Logger::Global().Log(l, "plugin_log", message ? message : "",
                       {{"plugin", plugin ? plugin : "?"}});
}

orcd_error* ServiceErrorNew(orcd_status code, const char* message) {
  return NewOrcdError(code, message ? message : "");
}
orcd_status ServiceErrorCode(const orcd_error* e) { return OrcdErrorCode(e); }
const char* ServiceErrorMessage(const orcd_error* e) { return e ? e->message.c_str() : ""; }
void ServiceErrorFree(orcd_error* e) { delete e; }

void* ServiceHostAlloc(size_t bytes, size_t alignment) {
  if (alignment < alignof(void*)) alignment = alignof(void*);
  if ((alignment & (alignment - 1)) != 0) return nullptr;
  void* p = nullptr;
  return posix_memalign(&p, alignment, bytes == 0 ? 1 : bytes) == 0 ? p : nullptr;
}
void ServiceHostFree(void* p) { std::free(p); }

// Device memory is provided by the CUDA device context when it exists; on the
// CPU backend plugins are told plainly that there is none.
orcd_error* ServiceDeviceAlloc(size_t, void** out) {
  if (out) *out = nullptr;
  return NewOrcdError(ORCD_ERR_UNSUPPORTED, "device memory is not available on this backend");
}
void ServiceDeviceFree(void*) {}

orcd_backend ServiceBackend() { return g_backend.load(); }
void* ServiceStream() { return g_stream.load(); }

const orcd_host_services kServices = {
    sizeof(orcd_host_services),
    ORCD_ABI_MAJOR,
    ORCD_ABI_MINOR,
    ServiceLog,
    ServiceErrorNew,
    ServiceErrorCode,
    ServiceErrorMessage,
    ServiceErrorFree,
    ServiceHostAlloc,
    ServiceHostFree,
    ServiceDeviceAlloc,
    ServiceDeviceFree,
    ServiceBackend,
    ServiceStream,
};

}  // namespace

const orcd_host_services* HostServices() { return &kServices; }

void SetHostBackend(orcd_backend backend, void* cuda_stream) {
  g_backend = backend;
  g_stream = cuda_stream;
}

void OrcdErrorDeleter::operator()(orcd_error* e) const { delete e; }

orcd_error* NewOrcdError(orcd_status code, const std::string& message) {
  return new (std::nothrow) orcd_error{code, message};
}

orcd_status OrcdErrorCode(const orcd_error* error) { return error ? error->code : ORCD_OK; }

std::string OrcdErrorMessage(const orcd_error* error) { return error ? error->message : ""; }

void ThrowIfPluginError(orcd_error* error, const std::string& context) {
  if (error == nullptr) return;
  OrcdErrorPtr owned(error);
  throw Error(FromOrcdStatus(owned->code), context + ": " + owned->message);
}

orcd_status ToOrcdStatus(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return ORCD_ERR_INVALID_ARGUMENT;
    case ErrorCode::kUnsupported:
      return ORCD_ERR_UNSUPPORTED;
    case ErrorCode::kModelInvalid:
    case ErrorCode::kNotFound:
      return ORCD_ERR_MODEL_INVALID;
    case ErrorCode::kOutOfMemory:
      return ORCD_ERR_OUT_OF_MEMORY;
    case ErrorCode::kDevice:
      return ORCD_ERR_DEVICE;
    default:
      return ORCD_ERR_INTERNAL;
  }
}

ErrorCode FromOrcdStatus(orcd_status status) {
  switch (status) {
    case ORCD_ERR_INVALID_ARGUMENT:
      return ErrorCode::kInvalidArgument;
    case ORCD_ERR_UNSUPPORTED:
      return ErrorCode::kUnsupported;
    case ORCD_ERR_MODEL_INVALID:
      return ErrorCode::kModelInvalid;
    case ORCD_ERR_OUT_OF_MEMORY:
      return ErrorCode::kOutOfMemory;
    case ORCD_ERR_DEVICE:
      return ErrorCode::kDevice;
    default:
      return ErrorCode::kInternal;
  }
}

}  // namespace orcd
