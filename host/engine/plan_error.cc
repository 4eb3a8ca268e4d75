#include "host/engine/plan_error.h"

namespace orcd::engine {
namespace {

// A plan the model cannot satisfy is a model problem; a missing kernel is the
// backend's limitation.
ErrorCode CodeFor(PlanErrorKind kind) {
  switch (kind) {
    case PlanErrorKind::kMissingAdapter:
    case PlanErrorKind::kUnsupportedWeightType:
      return ErrorCode::kUnsupported;
    default:
      return ErrorCode::kModelInvalid;
  }
}

}  // namespace

std::string_view PlanErrorKindName(PlanErrorKind kind) {
  switch (kind) {
    case PlanErrorKind::kUnknownWeight:
      return "unknown_weight";
    case PlanErrorKind::kShapeMismatch:
      return "shape_mismatch";
    case PlanErrorKind::kMissingAdapter:
      return "missing_adapter";
    case PlanErrorKind::kBadParams:
      return "bad_params";
    case PlanErrorKind::kBadRegister:
      return "bad_register";
    case PlanErrorKind::kUnknownKvState:
      return "unknown_kv_state";
    case PlanErrorKind::kMissingLogits:
      return "missing_logits";
    case PlanErrorKind::kUnsupportedWeightType:
      return "unsupported_weight_type";
  }
  return "?";
}

PlanError::PlanError(PlanErrorKind kind, const std::string& message)
    : Error(CodeFor(kind), "plan " + std::string(PlanErrorKindName(kind)) + ": " + message),
      kind_(kind) {}

}  // namespace orcd::engine
