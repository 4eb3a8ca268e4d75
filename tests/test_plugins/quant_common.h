/* Shared body of the test quant plugins: Q8_0-shaped no-op kernels. */
#ifndef ORCD_TESTS_QUANT_COMMON_H_
#define ORCD_TESTS_QUANT_COMMON_H_

#include <stddef.h>
#include <string.h>

#include "orcd/plugin.h"

static void t_dequantize(const void* b, float* out, int64_t n) {
  (void)b;
  memset(out, 0, (size_t)n * sizeof(float));
}
static void t_quantize(const float* in, void* b, int64_t n) {
  (void)in;
  (void)b;
  (void)n;
}
static void t_get_rows(const void* w, int64_t cols, const int32_t* ids, int64_t n_ids, float* out) {
  (void)w;
  (void)ids;
  memset(out, 0, (size_t)(cols * n_ids) * sizeof(float));
}
static void t_matmul(const void* w, int64_t rows, int64_t cols, const float* x, int64_t n_tokens,
                     float* y, int64_t y_stride) {
  (void)w;
  (void)cols;
  (void)x;
  for (int64_t t = 0; t < n_tokens; ++t) memset(y + t * y_stride, 0, (size_t)rows * sizeof(float));
}
static const orcd_quant_cpu_ops kCpu = {
    sizeof(orcd_quant_cpu_ops), t_dequantize, t_quantize, t_get_rows, t_matmul, 0};
/* The CPU functions as a plugin built against ABI 1.0 sees them: the struct
 * ends after matmul (1.1 appended matvec_q8). */
static const orcd_quant_cpu_ops kCpuAbi10 = {
    offsetof(orcd_quant_cpu_ops, matvec_q8), t_dequantize, t_quantize, t_get_rows, t_matmul, 0};

#define ORCD_TEST_QUANT_PLUGIN(plugin_name, type_id, type_name, elems, bytes) \
  ORCD_TEST_QUANT_PLUGIN_AT(plugin_name, type_id, type_name, elems, bytes, ORCD_ABI_MINOR, &kCpu)

#define ORCD_TEST_QUANT_PLUGIN_AT(plugin_name, type_id, type_name, elems, bytes, abi_minor, cpu) \
  static const orcd_quant_type kTypes[] = {                                                      \
      {sizeof(orcd_quant_type), type_id, type_name, elems, bytes, cpu, 0}};                      \
  static const orcd_quant_plugin kQuant = {sizeof(orcd_quant_plugin), 1, kTypes};                \
  static const orcd_plugin_descriptor kDescriptor = {sizeof(orcd_plugin_descriptor),             \
                                                     ORCD_ABI_MAJOR,                             \
                                                     abi_minor,                                  \
                                                     plugin_name,                                \
                                                     "1.0",                                      \
                                                     ORCD_PLUGIN_QUANT,                          \
                                                     0,                                          \
                                                     &kQuant};                                   \
  ORCD_PLUGIN_EXPORT const orcd_plugin_descriptor* orcd_plugin_v1(                               \
      const orcd_host_services* host) {                                                          \
    (void)host;                                                                                  \
    return &kDescriptor;                                                                         \
  }

#endif
