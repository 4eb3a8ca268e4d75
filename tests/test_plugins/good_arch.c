/* Test plugin test-arch (see tests/unit/plugin_registry_test.cc). */
#include "test_arch_common.h"

ORCD_TEST_ARCH_PLUGIN("test-arch", ORCD_ABI_MAJOR, ORCD_ABI_MINOR, "testarch", "testarch2")

ORCD_PLUGIN_EXPORT const orcd_plugin_descriptor* orcd_plugin_v1(const orcd_host_services* host) {
  g_host = host;
  return &kDescriptor;
}
