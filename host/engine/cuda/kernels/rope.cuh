// ROPE with ggml's rope_ext semantics (see cpu/rope_adapter.cc): one thread
// per (token, head, pair). theta is advanced step by step in f32 like ggml's
// CPU cache, so angles match the CPU backend's bit for bit before cos/sin.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_ROPE_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_ROPE_CUH_

#include "host/engine/cuda/kernels/common.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

// Items of target 0 first, then of target 1 (the lowered ROPE_FUSED: Q and K
// in one launch). A target's bias is added as its values are read: the same
// bits as the MATMUL's separate bias launch before the rotation.
__global__ void rope_kernel(RopeArgs a) {
  const int64_t half = a.n_rot / 2;
  const int64_t pairs = a.head_dim / 2;  // rotated pairs, then pass-through pairs
  const int64_t n0 = a.n_tokens * a.target[0].heads * pairs;
  const int64_t n = n0 + (a.n_targets > 1 ? a.n_tokens * a.target[1].heads * pairs : 0);
  ORCD_GRID_STRIDE(index, n) {
    const bool second = index >= n0;
    const RopeTarget tg = second ? a.target[1] : a.target[0];
    const int64_t item = second ? index - n0 : index;
    const int64_t t = item / (tg.heads * pairs);
    const int64_t h = (item / pairs) % tg.heads;
    const int64_t pair = item % pairs;
    const float* src = tg.x + t * tg.heads * a.head_dim + h * a.head_dim;
    float* dst = tg.y + t * tg.heads * a.head_dim + h * a.head_dim;
    const float* bias = tg.bias ? tg.bias + h * a.head_dim : nullptr;
    const auto load = [&](int64_t i) { return bias ? src[i] + bias[i] : src[i]; };
    const int64_t i0 = 2 * pair;
    if (i0 >= a.n_rot) {  // beyond the rotated dims: copy
      const float v0 = load(i0), v1 = load(i0 + 1);
      dst[i0] = v0;
      dst[i0 + 1] = v1;
      continue;
    }
    float theta = static_cast<float>(a.step->rows[t].position);
    for (int64_t j = 0; j < pair; ++j) theta *= a.theta_scale;
    const float ff = a.freq_factors ? a.freq_factors[pair] : 1.0f;
    const float extrap = theta / ff;
    const float interp = a.freq_scale * extrap;
    float angle = interp;
    if (a.ext_factor != 0.0f) {
      const float y =
          (static_cast<float>(pair) - a.yarn_low) / fmaxf(0.001f, a.yarn_high - a.yarn_low);
      const float mix = (1.0f - fminf(1.0f, fmaxf(0.0f, y))) * a.ext_factor;
      angle = interp * (1.0f - mix) + extrap * mix;
    }
    const float c = cosf(angle) * a.mscale, s = sinf(angle) * a.mscale;
    const int64_t i = a.neox ? pair : i0;
    const int64_t k = a.neox ? pair + half : i0 + 1;
    const float x0 = load(i), x1 = load(k);
    dst[i] = x0 * c - x1 * s;
    dst[k] = x0 * s + x1 * c;
  }
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ROPE_CUH_
