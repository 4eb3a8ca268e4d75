// Error type used inside the host. Errors cross the plugin ABI as orcd_error
// objects (see plugins/host_services.h); inside the host they are exceptions
// carrying a stable code, so every failure names what went wrong.
#ifndef ORCD_HOST_COMMON_STATUS_H_
#define ORCD_HOST_COMMON_STATUS_H_

#include <stdexcept>
#include <string>
#include <string_view>

namespace orcd {

enum class ErrorCode {
  kInvalidArgument,  // caller passed something out of contract
  kNotFound,         // a file, key or tensor that should exist does not
  kModelInvalid,     // malformed or hostile GGUF
  kUnsupported,      // well-formed, but nothing here can serve it
  kPluginRefused,    // a plugin failed its ABI or load checks
  kOutOfMemory,
  kDevice,
  kIo,
  kInternal,
  kStopped,  // a run abandoned because its job was cancelled or timed out
};

// Stable upper-case name, e.g. "MODEL_INVALID".
std::string_view ErrorCodeName(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace orcd

#endif  // ORCD_HOST_COMMON_STATUS_H_
