// RoPE's per-launch constants and YaRN's correction range (ggml's
// ggml_rope_yarn_corr_dims), shared by the CPU and CUDA ROPE adapters so both
// rotate by the same angles (computed on the host: device powf and logf are
// not correctly rounded).
#ifndef ORCD_HOST_ENGINE_ROPE_YARN_H_
#define ORCD_HOST_ENGINE_ROPE_YARN_H_

#include <algorithm>
#include <cmath>
#include <numbers>

#include "orcd/ops.h"

namespace orcd::engine {

struct YarnDims {
  float low = 0.0f;
  float high = 0.0f;
};

inline float YarnCorrDim(int n_dims, uint32_t n_ctx_orig, float n_rot, float base) {
  return static_cast<float>(n_dims) *
         std::log(static_cast<float>(n_ctx_orig) / (n_rot * 2.0f * std::numbers::pi_v<float>)) /
         (2.0f * std::log(base));
}

inline YarnDims YarnCorrDims(const orcd_op_rope_params& p) {
  if (p.ext_factor == 0.0f) return {};
  const int n = static_cast<int>(p.n_rot);
  const float start = std::floor(YarnCorrDim(n, p.n_ctx_orig, p.beta_fast, p.freq_base));
  const float end = std::ceil(YarnCorrDim(n, p.n_ctx_orig, p.beta_slow, p.freq_base));
  return {std::max(0.0f, start), std::min(static_cast<float>(n - 1), end)};
}

// theta's factor from one rotated pair to the next: freq_base^(-2 / n_rot).
inline float RopeThetaScale(const orcd_op_rope_params& p) {
  return std::pow(p.freq_base, -2.0f / static_cast<float>(p.n_rot));
}

// The rotation's magnitude: attn_factor (already 1 where the field was
// zeroed), times YaRN's magnitude factor when ext_factor != 0.
inline float RopeMagnitude(const orcd_op_rope_params& p) {
  float mscale = p.attn_factor;
  if (p.ext_factor != 0.0f) mscale *= 1.0f + 0.1f * std::log(1.0f / p.freq_scale);
  return mscale;
}

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_ROPE_YARN_H_
