// orcd-plugin-gemma: the gemma2 and gemma3 architectures. Reads the model
// through the view, emits the plan through the builder; names no HTTP, YAML
// or CUDA: the host runs the plan on whatever backend it has.
#include "gemma_config.h"
#include "gemma_plan.h"
#include "orcd/cpp/arch_plugin.h"

namespace {

void Compile(const orcd::sdk::ModelReader& model, orcd::sdk::PlanWriter& plan) {
  orcd::gemma::EmitGemmaPlan(orcd::gemma::ReadGemmaConfig(model), plan);
}

// Used when a model file carries no chat template the host recognises.
constexpr orcd_chat_defaults kChatDefaults[] = {
    {sizeof(orcd_chat_defaults), "gemma2", "turns", "", 0},
    {sizeof(orcd_chat_defaults), "gemma3", "turns", "", 0},
};

}  // namespace

ORCD_ARCH_PLUGIN_WITH_CHAT("gemma", ORCD_GEMMA_PLUGIN_VERSION, orcd::gemma::kArchitectures,
                           orcd::gemma::kArchitectureCount, Compile, kChatDefaults,
                           sizeof kChatDefaults / sizeof kChatDefaults[0])
