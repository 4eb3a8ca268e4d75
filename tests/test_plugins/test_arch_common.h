/* Shared body of the test architecture plugins: a descriptor whose ABI
 * fields and architecture list each test file sets through macros. */
#ifndef ORCD_TESTS_TEST_ARCH_COMMON_H_
#define ORCD_TESTS_TEST_ARCH_COMMON_H_

#include "orcd/plugin.h"

static const orcd_host_services* g_host;

/* Reports which architecture it was asked to compile, so tests can see the
 * model view and error objects cross the boundary. */
static orcd_error* test_compile(const orcd_model_view* model, const orcd_model_view_ops* view,
                                orcd_plan_builder* builder, const orcd_plan_builder_ops* ops) {
  const char* arch = "?";
  (void)builder;
  (void)ops;
  view->get_string(model, "general.architecture", &arch);
  return g_host->error_new(ORCD_ERR_UNSUPPORTED, arch);
}

#define ORCD_TEST_ARCH_PLUGIN(plugin_name, major, minor, ...)                      \
  static const char* const kArchitectures[] = {__VA_ARGS__};                       \
  static const orcd_arch_plugin kArch = {                                          \
      sizeof(orcd_arch_plugin), kArchitectures,                                    \
      (uint32_t)(sizeof kArchitectures / sizeof kArchitectures[0]), test_compile}; \
  static const orcd_plugin_descriptor kDescriptor = {                              \
      sizeof(orcd_plugin_descriptor), major,  minor, plugin_name, "1.0",           \
      ORCD_PLUGIN_ARCHITECTURE,       &kArch, 0};

#endif
