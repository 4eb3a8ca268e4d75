// orcd-plugin-gpt: the gpt2 and gpt-oss architectures. Reads the model
// through the view, emits the plan through the builder; names no HTTP, YAML
// or CUDA: the host runs the plan on whatever backend it has.
#include "gpt2_plan.h"
#include "gpt_config.h"
#include "gpt_oss_plan.h"
#include "orcd/cpp/model_reader.h"
#include "orcd/cpp/plan_writer.h"
#include "orcd/plugin.h"

namespace {

const orcd_host_services* g_host = nullptr;

orcd_error* Compile(const orcd_model_view* model, const orcd_model_view_ops* view,
                    orcd_plan_builder* builder, const orcd_plan_builder_ops* ops) {
  return orcd::sdk::CatchCompileErrors(g_host, [&] {
    const orcd::sdk::ModelReader reader(model, view);
    const orcd::gpt::GptConfig config = orcd::gpt::ReadGptConfig(reader);
    orcd::sdk::PlanWriter writer(builder, ops, g_host);
    if (config.variant == orcd::gpt::GptVariant::kGpt2) {
      orcd::gpt::EmitGpt2Plan(reader, config, writer);
    } else {
      orcd::gpt::EmitGptOssPlan(reader, config, writer);
    }
  });
}

const orcd_arch_plugin kArch = {
    sizeof(orcd_arch_plugin),
    orcd::gpt::kArchitectures,
    orcd::gpt::kArchitectureCount,
    &Compile,
};

const orcd_plugin_descriptor kDescriptor = {
    sizeof(orcd_plugin_descriptor), ORCD_ABI_MAJOR,           ORCD_ABI_MINOR, "gpt",
    ORCD_GPT_PLUGIN_VERSION,        ORCD_PLUGIN_ARCHITECTURE, &kArch,         nullptr,
};

}  // namespace

extern "C" ORCD_PLUGIN_EXPORT const orcd_plugin_descriptor* orcd_plugin_v1(
    const orcd_host_services* host) {
  if (host == nullptr || host->abi_major != ORCD_ABI_MAJOR) return nullptr;
  g_host = host;
  return &kDescriptor;
}
