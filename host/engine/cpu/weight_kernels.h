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
// one generated token through orcd_quant_cpu_ops.matvec_q8, several through
// matmul_q8_decode (ABI 1.9; else matmul_q8), prompts through matmul_q8: each
// gives every token matvec_q8's bits.
// Which arithmetic a token's matmul gets. Fixed by the kind, never by how
// many tokens share the call, so that a sequence's bits do not depend on
// what else runs in its step (batch invariance): prompt tokens take the
// tiled GEMMs, generated tokens matvec_q8's (or the plain dots') arithmetic.
enum class TokenKind { kPrompt, kGenerated };

void MatmulRows(const WeightRef& w, int64_t row0, int64_t n_rows, const float* x, int64_t n_tokens,
                float* y, int64_t y_stride, bool q8_activations, TokenKind kind);

// out[i][:] = row ids[i] of w, as f32. ids must be in range.
void GetRows(const WeightRef& w, const int32_t* ids, int64_t n_ids, float* out);

}  // namespace orcd::engine::cpu

#endif  // ORCD_HOST_ENGINE_CPU_WEIGHT_KERNELS_H_
