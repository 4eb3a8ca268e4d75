// The services table the host hands every plugin (orcd_host_services), the
// host's orcd_error objects, and C++ helpers for errors crossing the ABI.
#ifndef ORCD_HOST_PLUGINS_HOST_SERVICES_H_
#define ORCD_HOST_PLUGINS_HOST_SERVICES_H_

#include <memory>
#include <string>

#include "host/common/status.h"
#include "orcd/plugin.h"

namespace orcd {

// The process-wide services table. Backend and stream are set by the device
// context before plugins run kernels; they default to CPU / no stream.
const orcd_host_services* HostServices();
void SetHostBackend(orcd_backend backend, void* cuda_stream);

// Owns an orcd_error received from a plugin.
struct OrcdErrorDeleter {
  void operator()(orcd_error* e) const;
};
using OrcdErrorPtr = std::unique_ptr<orcd_error, OrcdErrorDeleter>;

orcd_error* NewOrcdError(orcd_status code, const std::string& message);
orcd_status OrcdErrorCode(const orcd_error* error);
std::string OrcdErrorMessage(const orcd_error* error);

// Converts a plugin error into orcd::Error (taking ownership); no-op on NULL.
void ThrowIfPluginError(orcd_error* error, const std::string& context);

// Maps host error codes to ABI status codes and back.
orcd_status ToOrcdStatus(ErrorCode code);
ErrorCode FromOrcdStatus(orcd_status status);

}  // namespace orcd

#endif  // ORCD_HOST_PLUGINS_HOST_SERVICES_H_
