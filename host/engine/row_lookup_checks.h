// The run-time checks of the row-lookup ops, shared by every backend: a token
// id outside the vocabulary (EMBEDDING) or a position past a learned position
// table (POSITION_EMBEDDING) is the caller's error, reported before any work.
#ifndef ORCD_HOST_ENGINE_ROW_LOOKUP_CHECKS_H_
#define ORCD_HOST_ENGINE_ROW_LOOKUP_CHECKS_H_

#include <cstdint>
#include <string>

#include "host/common/status.h"
#include "host/engine/weight_table.h"

namespace orcd::engine {

inline void CheckTokenIds(const WeightRef& table, const int32_t* ids, int64_t n) {
  for (int64_t t = 0; t < n; ++t) {
    if (ids[t] < 0 || ids[t] >= table.rows()) {
      throw Error(ErrorCode::kInvalidArgument, "token id " + std::to_string(ids[t]) +
                                                   " is outside the vocabulary (0.." +
                                                   std::to_string(table.rows() - 1) + ")");
    }
  }
}

inline void CheckLearnedPositions(const WeightRef& table, int64_t pos0, int64_t n) {
  const int64_t last = pos0 + n - 1;
  if (last >= table.rows()) {
    throw Error(ErrorCode::kInvalidArgument,
                "position " + std::to_string(last) + " is past the model's learned positions (" +
                    std::to_string(table.rows()) + " in '" + table.name + "')");
  }
}

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_ROW_LOOKUP_CHECKS_H_
