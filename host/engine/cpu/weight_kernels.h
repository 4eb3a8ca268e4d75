// Matmul and row lookup over a weight of any type: F32/F16/BF16 by the host's
// own kernels, everything else by the quant plugin that serves the type
// (orcd_quant_cpu_ops, block by block, no dequantized copy).
#ifndef ORCD_HOST_ENGINE_CPU_WEIGHT_KERNELS_H_
#define ORCD_HOST_ENGINE_CPU_WEIGHT_KERNELS_H_

#include <cstdint>

#include "host/engine/weight_table.h"

namespace orcd::engine::cpu {

// Whether the CPU backend can run matmul / get_rows on w.
bool CpuSupportsWeight(const WeightRef& w);

// y[t * y_stride + r] = W[row0 + r] . x[t] for r in [0, n_rows), t in [0, n_tokens).
// x is [n_tokens][w.cols()]. Thread-safe on disjoint outputs. With
// `q8_activations`, x is rounded to 8 bits first where the plugin offers it:
// one token through orcd_quant_cpu_ops.matvec_q8, prefill (from 4 tokens)
// through matmul_q8, which gives each token matvec_q8's bits.
void MatmulRows(const WeightRef& w, int64_t row0, int64_t n_rows, const float* x, int64_t n_tokens,
                float* y, int64_t y_stride, bool q8_activations = false);

// out[i][:] = row ids[i] of w, as f32. ids must be in range.
void GetRows(const WeightRef& w, const int32_t* ids, int64_t n_ids, float* out);

}  // namespace orcd::engine::cpu

#endif  // ORCD_HOST_ENGINE_CPU_WEIGHT_KERNELS_H_
