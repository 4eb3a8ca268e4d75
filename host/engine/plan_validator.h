// Validation of an ExecutionPlan, once at load: every opcode has an adapter on
// the backend, every weight resolves to a GGUF tensor of a type the backend
// serves, every register is written before it is read and shapes agree
// (op_shapes.h), KV states exist, each phase has logits. The result is the
// BoundPlan the executor runs: nothing is looked up by name afterwards.
// Failures are PlanError (plan_error.h).
#ifndef ORCD_HOST_ENGINE_PLAN_VALIDATOR_H_
#define ORCD_HOST_ENGINE_PLAN_VALIDATOR_H_

#include <cstdint>

#include "host/engine/adapter_table.h"
#include "host/engine/bound_plan.h"
#include "host/engine/plan.h"
#include "host/engine/weight_table.h"

namespace orcd::engine {

// `prefill_rows`: the most tokens one prefill run carries; `decode_rows`: one
// decode run's (a generated token of each of that many sequences).
BoundPlan ValidatePlan(const ExecutionPlan& plan, const WeightTable& weights,
                       const AdapterTable& adapters, int64_t prefill_rows, int64_t decode_rows = 1);

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_PLAN_VALIDATOR_H_
