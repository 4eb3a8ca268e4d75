// orcd-plugin-llama: the llama, qwen2 and phi3 architectures. Reads the model
// through the view, emits the plan through the builder; names no HTTP, YAML
// or CUDA: the host runs the plan on whatever backend it has.
#include "llama_config.h"
#include "llama_plan.h"
#include "orcd/cpp/arch_plugin.h"

namespace {

void Compile(const orcd::sdk::ModelReader& model, orcd::sdk::PlanWriter& plan) {
  orcd::llama::EmitLlamaPlan(model, orcd::llama::ReadLlamaConfig(model), plan);
}

}  // namespace

ORCD_ARCH_PLUGIN("llama", ORCD_LLAMA_PLUGIN_VERSION, orcd::llama::kArchitectures,
                 orcd::llama::kArchitectureCount, Compile)
