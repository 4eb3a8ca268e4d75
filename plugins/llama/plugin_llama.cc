// orcd-plugin-llama: the llama, qwen2, phi3, qwen3 and qwen3moe architectures. Reads the model
// through the view, emits the plan through the builder; names no HTTP, YAML
// or CUDA: the host runs the plan on whatever backend it has.
#include "llama_config.h"
#include "llama_plan.h"
#include "orcd/cpp/arch_plugin.h"

namespace {

void Compile(const orcd::sdk::ModelReader& model, orcd::sdk::PlanWriter& plan) {
  orcd::llama::EmitLlamaPlan(model, orcd::llama::ReadLlamaConfig(model), plan);
}

// Used when a model file carries no chat template the host recognises.
// Qwen2.5's template adds this system prompt when none is given; Phi-3's HF
// tokenizer strips the whitespace after its chat tokens.
constexpr orcd_chat_defaults kChatDefaults[] = {
    {sizeof(orcd_chat_defaults), "qwen2", "chatml", "You are a helpful assistant.", 0},
    {sizeof(orcd_chat_defaults), "phi3", "role-tags", "", 1},
    {sizeof(orcd_chat_defaults), "qwen3", "chatml", "", 0},
    {sizeof(orcd_chat_defaults), "qwen3moe", "chatml", "", 0},
};

}  // namespace

ORCD_ARCH_PLUGIN_WITH_CHAT("llama", ORCD_LLAMA_PLUGIN_VERSION, orcd::llama::kArchitectures,
                           orcd::llama::kArchitectureCount, Compile, kChatDefaults,
                           sizeof kChatDefaults / sizeof kChatDefaults[0])
