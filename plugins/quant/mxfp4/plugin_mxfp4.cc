// The mxfp4 quant plugin: ggml's MXFP4 (type 39), the gpt-oss expert format.
#include "common/plugin_support.h"

extern "C" ORCD_PLUGIN_EXPORT const orcd_plugin_descriptor* orcd_plugin_v1(
    const orcd_host_services* host) {
  return orcd::quant::build_quant_plugin(host,
                                         {"mxfp4", ORCD_QUANT_PLUGIN_VERSION, ORCD_QUANT_CUDA_OPS});
}
