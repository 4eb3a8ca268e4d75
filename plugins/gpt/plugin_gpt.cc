// orcd-plugin-gpt: the gpt2 and gpt-oss architectures. Reads the model
// through the view, emits the plan through the builder; names no HTTP, YAML
// or CUDA: the host runs the plan on whatever backend it has.
#include "gpt2_plan.h"
#include "gpt_config.h"
#include "gpt_oss_plan.h"
#include "orcd/cpp/arch_plugin.h"

namespace {

void Compile(const orcd::sdk::ModelReader& model, orcd::sdk::PlanWriter& plan) {
  const orcd::gpt::GptConfig config = orcd::gpt::ReadGptConfig(model);
  if (config.variant == orcd::gpt::GptVariant::kGpt2) {
    orcd::gpt::EmitGpt2Plan(model, config, plan);
  } else {
    orcd::gpt::EmitGptOssPlan(model, config, plan);
  }
}

// gpt-oss converses in harmony when its file carries no template; gpt2 has
// no chat format.
constexpr orcd_chat_defaults kChatDefaults[] = {
    {sizeof(orcd_chat_defaults), "gpt-oss", "harmony", "", 0},
};

}  // namespace

ORCD_ARCH_PLUGIN_WITH_CHAT("gpt", ORCD_GPT_PLUGIN_VERSION, orcd::gpt::kArchitectures,
                           orcd::gpt::kArchitectureCount, Compile, kChatDefaults, 1)
