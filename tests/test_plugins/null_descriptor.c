/* Test plugin whose entry declines to run (returns NULL after logging why). */
#include "orcd/plugin.h"

ORCD_PLUGIN_EXPORT const orcd_plugin_descriptor* orcd_plugin_v1(const orcd_host_services* host) {
  host->log(ORCD_LOG_WARN, "test-null", "this plugin declines to load");
  return 0;
}
