// Shared by the request parsers (/execute, /v1/*): the exception that carries
// a ValidationError out of nested checks, and the worker-drawn seed.
#ifndef ORCD_HOST_SERVER_REQUEST_VALIDATION_H_
#define ORCD_HOST_SERVER_REQUEST_VALIDATION_H_

#include <cstdint>
#include <string>

#include "host/server/execute_request.h"

namespace orcd {

struct InvalidRequest {
  ValidationError error;
};

// Throws InvalidRequest whose message starts with the field's name.
[[noreturn]] inline void FailField(const std::string& field, const std::string& message) {
  throw InvalidRequest{{field, field.empty() ? message : field + " " + message}};
}

// A seed for requests that give none (reported back so a run can be repeated).
uint64_t DrawSeed();

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_REQUEST_VALIDATION_H_
