// Typed errors of plan validation. They derive from orcd::Error so callers
// that only want a code and a message need nothing else; tests and tools can
// tell the kinds apart.
#ifndef ORCD_HOST_ENGINE_PLAN_ERROR_H_
#define ORCD_HOST_ENGINE_PLAN_ERROR_H_

#include <string>
#include <string_view>

#include "host/common/status.h"

namespace orcd::engine {

enum class PlanErrorKind {
  kUnknownWeight,          // a weight name the GGUF does not have
  kShapeMismatch,          // widths / weight shapes / parameters that do not agree
  kMissingAdapter,         // an opcode this backend has no adapter for
  kBadParams,              // parameter block missing, too small or out of range
  kBadRegister,            // read before written, written twice with another width, ...
  kUnknownKvState,         // attention naming a KV layer without a descriptor
  kMissingLogits,          // a phase without a logits register
  kUnsupportedWeightType,  // a weight type no kernel on this backend serves
};

std::string_view PlanErrorKindName(PlanErrorKind kind);

class PlanError : public Error {
 public:
  PlanError(PlanErrorKind kind, const std::string& message);
  PlanErrorKind kind() const { return kind_; }

 private:
  PlanErrorKind kind_;
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_PLAN_ERROR_H_
