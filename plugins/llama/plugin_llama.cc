// orcd-plugin-llama: the llama, qwen2 and phi3 architectures. Reads the model
// through the view, emits the plan through the builder; names no HTTP, YAML
// or CUDA: the host runs the plan on whatever backend it has.
#include "llama_config.h"
#include "llama_plan.h"
#include "orcd/cpp/model_reader.h"
#include "orcd/cpp/plan_writer.h"
#include "orcd/plugin.h"

namespace {

const orcd_host_services* g_host = nullptr;

orcd_error* Compile(const orcd_model_view* model, const orcd_model_view_ops* view,
                    orcd_plan_builder* builder, const orcd_plan_builder_ops* ops) {
  return orcd::sdk::CatchCompileErrors(g_host, [&] {
    const orcd::sdk::ModelReader reader(model, view);
    const orcd::llama::LlamaConfig config = orcd::llama::ReadLlamaConfig(reader);
    orcd::sdk::PlanWriter writer(builder, ops, g_host);
    orcd::llama::EmitLlamaPlan(reader, config, writer);
  });
}

const orcd_arch_plugin kArch = {
    sizeof(orcd_arch_plugin),
    orcd::llama::kArchitectures,
    orcd::llama::kArchitectureCount,
    &Compile,
};

const orcd_plugin_descriptor kDescriptor = {
    sizeof(orcd_plugin_descriptor),
    ORCD_ABI_MAJOR,
    ORCD_ABI_MINOR,
    "llama",
    ORCD_LLAMA_PLUGIN_VERSION,
    ORCD_PLUGIN_ARCHITECTURE,
    &kArch,
    nullptr,
};

}  // namespace

extern "C" ORCD_PLUGIN_EXPORT const orcd_plugin_descriptor* orcd_plugin_v1(
    const orcd_host_services* host) {
  if (host == nullptr || host->abi_major != ORCD_ABI_MAJOR) return nullptr;
  g_host = host;
  return &kDescriptor;
}
