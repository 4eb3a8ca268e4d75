// The q4 quant plugin: the ggml block types Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K,
// Q5_K and Q6_K (the "q4" lines of common/type_list.def).
#include "common/plugin_support.h"

extern "C" ORCD_PLUGIN_EXPORT const orcd_plugin_descriptor* orcd_plugin_v1(
    const orcd_host_services* host) {
  return orcd::quant::build_quant_plugin(host,
                                         {"q4", ORCD_QUANT_PLUGIN_VERSION, ORCD_QUANT_CUDA_OPS});
}
