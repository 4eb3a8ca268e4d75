// What the q4 and mxfp4 plugin entry points share: building the descriptor,
// the host services of this module, and host-side argument checks.
#ifndef ORCD_QUANT_COMMON_PLUGIN_SUPPORT_H_
#define ORCD_QUANT_COMMON_PLUGIN_SUPPORT_H_

#include <stdint.h>

#include <string>

#include "orcd/plugin.h"

namespace orcd::quant {

using CudaOpsLookup = const orcd_quant_cuda_ops* (*)(orcd_ggml_type type);

struct QuantPluginSpec {
  const char* name;  // "q4": serves the types type_list.def gives this plugin
  const char* version;
  CudaOpsLookup cuda_ops;  // nullptr when built without CUDA
};

// The body of orcd_plugin_v1: checks the host's ABI, remembers its services,
// picks the CPU kernels for this CPU once, and returns the descriptor (NULL,
// after logging why, if the plugin cannot run with this host).
const orcd_plugin_descriptor* build_quant_plugin(const orcd_host_services* host,
                                                 const QuantPluginSpec& spec);

// The host services this module was given (nullptr before build_quant_plugin);
// tests and tools that call the CUDA wrappers directly may set their own.
const orcd_host_services* module_host();
void set_module_host(const orcd_host_services* host);

// An orcd_error from the module's host; nullptr when no host can make one.
orcd_error* make_error(orcd_status code, const std::string& message);

// Checks the shape arguments of a matmul / get_rows call against the type's
// block size; returns an empty string when they are valid.
std::string check_matmul_args(uint32_t block_elems, const void* w, int64_t rows, int64_t cols,
                              const float* x, int64_t n_tokens, const float* y, int64_t y_stride);
std::string check_get_rows_args(uint32_t block_elems, const void* w, int64_t cols,
                                const int32_t* ids, int64_t n_ids,
                                const void* out);  // float or f16 out

#ifdef ORCD_PLUGIN_HAS_CUDA
// The CUDA ops of a served type (common/cuda_plugin_ops.cu), nullptr if none.
const orcd_quant_cuda_ops* cuda_plugin_ops(orcd_ggml_type type);
#define ORCD_QUANT_CUDA_OPS (&::orcd::quant::cuda_plugin_ops)
#else
#define ORCD_QUANT_CUDA_OPS nullptr
#endif

}  // namespace orcd::quant

#endif  // ORCD_QUANT_COMMON_PLUGIN_SUPPORT_H_
