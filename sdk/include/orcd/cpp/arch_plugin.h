// ORCD_ARCH_PLUGIN defines an architecture plugin's whole ABI surface (the
// arch descriptor, the plugin descriptor and the orcd_plugin_v1 entry) from
// one C++ function, so a plugin's entry file is its name and its dispatch:
//
//   void Compile(const orcd::sdk::ModelReader& model, orcd::sdk::PlanWriter& plan);
//   ORCD_ARCH_PLUGIN("llama", "0.1.0", kArchitectures, kArchitectureCount, Compile)
//
// ORCD_ARCH_PLUGIN_WITH_CHAT adds the family's chat defaults (orcd_chat_defaults).
//
// CompileError and std::exception thrown by Compile become orcd_error objects
// at the boundary (CatchCompileErrors); nothing C++ crosses it. Use it once
// per plugin, at namespace scope.
#ifndef ORCD_CPP_ARCH_PLUGIN_H_
#define ORCD_CPP_ARCH_PLUGIN_H_

#include "orcd/cpp/model_reader.h"
#include "orcd/cpp/plan_writer.h"
#include "orcd/plugin.h"

#define ORCD_ARCH_PLUGIN(NAME, VERSION, ARCHITECTURES, ARCHITECTURE_COUNT, COMPILE) \
  ORCD_ARCH_PLUGIN_WITH_CHAT(NAME, VERSION, ARCHITECTURES, ARCHITECTURE_COUNT, COMPILE, nullptr, 0)

// The same, with the family's chat defaults (orcd_chat_defaults[CHAT_COUNT]).
#define ORCD_ARCH_PLUGIN_WITH_CHAT(NAME, VERSION, ARCHITECTURES, ARCHITECTURE_COUNT, COMPILE,   \
                                   CHAT, CHAT_COUNT)                                            \
  namespace {                                                                                   \
  const orcd_host_services* orcd_plugin_host = nullptr;                                         \
  orcd_error* OrcdPluginCompile(const orcd_model_view* model, const orcd_model_view_ops* view,  \
                                orcd_plan_builder* builder, const orcd_plan_builder_ops* ops) { \
    return ::orcd::sdk::CatchCompileErrors(orcd_plugin_host, [&] {                              \
      const ::orcd::sdk::ModelReader reader(model, view);                                       \
      ::orcd::sdk::PlanWriter writer(builder, ops, orcd_plugin_host);                           \
      COMPILE(reader, writer);                                                                  \
    });                                                                                         \
  }                                                                                             \
  const orcd_arch_plugin kOrcdArchPlugin = {                                                    \
      sizeof(orcd_arch_plugin), ARCHITECTURES, ARCHITECTURE_COUNT,                              \
      &OrcdPluginCompile,       CHAT,          CHAT_COUNT};                                     \
  const orcd_plugin_descriptor kOrcdPluginDescriptor = {                                        \
      sizeof(orcd_plugin_descriptor), ORCD_ABI_MAJOR,   ORCD_ABI_MINOR, NAME, VERSION,          \
      ORCD_PLUGIN_ARCHITECTURE,       &kOrcdArchPlugin, nullptr};                               \
  }                                                                                             \
  extern "C" ORCD_PLUGIN_EXPORT const orcd_plugin_descriptor* orcd_plugin_v1(                   \
      const orcd_host_services* host) {                                                         \
    if (host == nullptr || host->abi_major != ORCD_ABI_MAJOR) return nullptr;                   \
    orcd_plugin_host = host;                                                                    \
    return &kOrcdPluginDescriptor;                                                              \
  }

#endif  // ORCD_CPP_ARCH_PLUGIN_H_
