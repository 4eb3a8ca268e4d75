/* Test plugin that exports the wrong symbol name: the registry must refuse it. */
#include "test_arch_common.h"

ORCD_TEST_ARCH_PLUGIN("test-missing-symbol", ORCD_ABI_MAJOR, ORCD_ABI_MINOR, "missingarch")

ORCD_PLUGIN_EXPORT const orcd_plugin_descriptor* orcd_plugin_v0(const orcd_host_services* host) {
  g_host = host;
  return &kDescriptor;
}
