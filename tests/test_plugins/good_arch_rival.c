/* Test plugin test-arch-rival (see tests/unit/plugin_registry_test.cc). */
#include "test_arch_common.h"

ORCD_TEST_ARCH_PLUGIN("test-arch-rival", ORCD_ABI_MAJOR, ORCD_ABI_MINOR, "testarch", "rivalarch")

ORCD_PLUGIN_EXPORT const orcd_plugin_descriptor* orcd_plugin_v1(const orcd_host_services* host) {
  g_host = host;
  return &kDescriptor;
}
