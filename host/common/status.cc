#include "host/common/status.h"

namespace orcd {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case ErrorCode::kNotFound:
      return "NOT_FOUND";
    case ErrorCode::kModelInvalid:
      return "MODEL_INVALID";
    case ErrorCode::kUnsupported:
      return "UNSUPPORTED";
    case ErrorCode::kPluginRefused:
      return "PLUGIN_REFUSED";
    case ErrorCode::kOutOfMemory:
      return "OUT_OF_MEMORY";
    case ErrorCode::kDevice:
      return "DEVICE_ERROR";
    case ErrorCode::kIo:
      return "IO_ERROR";
    case ErrorCode::kInternal:
      return "INTERNAL";
    case ErrorCode::kStopped:
      return "STOPPED";
  }
  return "INTERNAL";
}

}  // namespace orcd
