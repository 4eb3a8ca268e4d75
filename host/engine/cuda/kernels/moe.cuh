// MoE routing and mixing on the device (cpu/moe_adapter.cc semantics): top-k
// per token (ties: lower expert first), gating weights, the expert
// activation, and the weighted sum of the picked experts' outputs. Expert ids
// stay in device memory for the expert matvecs.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_MOE_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_MOE_CUH_

#include "host/engine/cuda/kernels/common.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

// One thread per token: E is small (32 for gpt-oss), k at most 16.
__global__ void moe_route_kernel(MoeRouteArgs a) {
  ORCD_GRID_STRIDE(t, a.n_tokens) {
    const float* l = a.logits + t * a.n_expert;
    int32_t* ids = a.ids + t * a.k;
    float* w = a.weights + t * a.k;
    // Softmax over all experts first (SOFTMAX gating), else raw logits.
    const bool probs = a.gating == 1;
    float max = -INFINITY;
    for (int64_t e = 0; e < a.n_expert; ++e) max = fmaxf(max, l[e]);
    float total = 0.0f;
    if (probs) {
      for (int64_t e = 0; e < a.n_expert; ++e) total += expf(l[e] - max);
    }
    auto value = [&](int64_t e) { return probs ? expf(l[e] - max) / total : l[e]; };
    for (int64_t i = 0; i < a.k; ++i) {  // selection: the best not yet picked
      int32_t best = -1;
      float best_v = -INFINITY;
      for (int64_t e = 0; e < a.n_expert; ++e) {
        bool taken = false;
        for (int64_t j = 0; j < i; ++j) taken = taken || ids[j] == e;
        const float v = value(e);
        if (!taken && (best < 0 || v > best_v)) {
          best = static_cast<int32_t>(e);
          best_v = v;
        }
      }
      ids[i] = best;
      w[i] = best_v;
    }
    if (!probs) {  // softmax over the k picked logits
      float sum = 0.0f;
      for (int64_t i = 0; i < a.k; ++i) sum += w[i] = expf(w[i] - l[ids[0]]);
      for (int64_t i = 0; i < a.k; ++i) w[i] /= sum;
    } else if (a.normalize) {
      float sum = 0.0f;
      for (int64_t i = 0; i < a.k; ++i) sum += w[i];
      for (int64_t i = 0; i < a.k; ++i) w[i] /= sum;
    }
  }
}

// Per-expert biases are added as the values are read (the same bits as a
// separate add_bias_ids launch before: one launch fewer each).
__global__ void moe_activate_kernel(float* g, const float* u, const float* g_bias,
                                    const float* u_bias, const int32_t* ids, int64_t f, int64_t n,
                                    int activation, float alpha, float limit) {
  ORCD_GRID_STRIDE(i, n) {
    const int64_t b = static_cast<int64_t>(ids[i / f]) * f + i % f;
    const float gv = g_bias ? g[i] + g_bias[b] : g[i];
    const float uv = u_bias ? u[i] + u_bias[b] : u[i];
    g[i] = ::orcd::GatedActivation(static_cast<uint32_t>(activation), gv, uv, alpha, limit);
  }
}

__global__ void moe_combine_kernel(const float* down, const float* bias, const int32_t* ids,
                                   const float* weights, float* y, int64_t n_tokens, int64_t k,
                                   int64_t d) {
  ORCD_GRID_STRIDE(i, n_tokens * d) {
    const int64_t t = i / d, c = i % d;
    float acc = 0.0f;
    for (int64_t j = 0; j < k; ++j) {
      const float* row = down + (t * k + j) * d;
      const float v = bias ? row[c] + bias[static_cast<int64_t>(ids[t * k + j]) * d + c] : row[c];
      acc = fmaf(weights[t * k + j], v, acc);
    }
    y[i] = acc;
  }
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_MOE_CUH_
