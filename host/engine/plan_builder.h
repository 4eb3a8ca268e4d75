// The host side of orcd_plan_builder_ops: collects what an architecture
// plugin's compile() emits into an ExecutionPlan. Only the form of each call is
// checked here (phases, pointers, sizes); meaning is checked once afterwards by
// the plan validator.
#ifndef ORCD_HOST_ENGINE_PLAN_BUILDER_H_
#define ORCD_HOST_ENGINE_PLAN_BUILDER_H_

#include "host/engine/plan.h"
#include "host/gguf/gguf_file.h"
#include "orcd/plugin.h"

namespace orcd::engine {

// Limits on one instruction (far above any real plan; they bound hostile input).
constexpr uint32_t kMaxInstructionOperands = 16;
constexpr uint32_t kMaxParamsBytes = 4096;
constexpr int32_t kMaxRegister = 1 << 16;

const orcd_plan_builder_ops* PlanBuilderOps();

// Runs `plugin.compile` on `file` and returns the plan it emitted. Throws
// orcd::Error with the plugin's status and message when compile fails.
ExecutionPlan CompilePlan(const orcd_arch_plugin& plugin, const GgufFile& file);

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_PLAN_BUILDER_H_
