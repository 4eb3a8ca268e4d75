// ROPE with ggml's rope_ext semantics (see cpu/rope_adapter.cc): one thread
// per (token, head, pair). theta is advanced step by step in f32 like ggml's
// CPU cache, so angles match the CPU backend's bit for bit before cos/sin.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_ROPE_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_ROPE_CUH_

#include "host/engine/cuda/kernels/common.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

__global__ void rope_kernel(RopeArgs a) {
  const int64_t half = a.n_rot / 2;
  const int64_t pairs = a.head_dim / 2;  // rotated pairs, then pass-through pairs
  const int64_t n = a.n_tokens * a.heads * pairs;
  const float theta_scale = powf(a.freq_base, -2.0f / static_cast<float>(a.n_rot));
  ORCD_GRID_STRIDE(item, n) {
    const int64_t t = item / (a.heads * pairs);
    const int64_t h = (item / pairs) % a.heads;
    const int64_t pair = item % pairs;
    const float* src = a.x + t * a.heads * a.head_dim + h * a.head_dim;
    float* dst = a.y + t * a.heads * a.head_dim + h * a.head_dim;
    const int64_t i0 = 2 * pair;
    if (i0 >= a.n_rot) {  // beyond the rotated dims: copy
      dst[i0] = src[i0];
      dst[i0 + 1] = src[i0 + 1];
      continue;
    }
    float theta = static_cast<float>(a.step->pos0 + t);
    for (int64_t j = 0; j < pair; ++j) theta *= theta_scale;
    const float ff = a.freq_factors ? a.freq_factors[pair] : 1.0f;
    const float extrap = theta / ff;
    const float interp = a.freq_scale * extrap;
    float angle = interp;
    float mscale = a.attn_factor;
    if (a.ext_factor != 0.0f) {
      const float y =
          (static_cast<float>(pair) - a.yarn_low) / fmaxf(0.001f, a.yarn_high - a.yarn_low);
      const float mix = (1.0f - fminf(1.0f, fmaxf(0.0f, y))) * a.ext_factor;
      angle = interp * (1.0f - mix) + extrap * mix;
      mscale *= 1.0f + 0.1f * logf(1.0f / a.freq_scale);
    }
    const float c = cosf(angle) * mscale, s = sinf(angle) * mscale;
    const int64_t i = a.neox ? pair : i0;
    const int64_t k = a.neox ? pair + half : i0 + 1;
    const float x0 = src[i], x1 = src[k];
    dst[i] = x0 * c - x1 * s;
    dst[k] = x0 * s + x1 * c;
  }
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ROPE_CUH_
