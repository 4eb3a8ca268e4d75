// ATTENTION: one CTA per (head, token), flash style: keys in tiles of
// blockDim.x (one score per thread), a running max and sum, and the output
// row accumulated in shared memory by dimension. Semantics of
// cpu/attention_adapter.cc: causal, sliding window, GQA, softcap, sinks in
// the denominator only; this batch's keys and values are read from the batch
// rounded like the cache (a windowed ring may already have dropped them), and
// a second kernel stores the batch into the cache afterwards.
//
// Launch shape: (n_head, n_tokens) CTAs whatever the position, so a decode
// step's launch never changes; the position comes from StepValues.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_ATTENTION_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_ATTENTION_CUH_

#include "host/engine/cuda/kernels/common.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

constexpr int kAttentionThreads = 128;

__device__ __forceinline__ float round_like_cache(float v, bool f16) {
  return f16 ? ::orcd::fp16_to_f32(::orcd::f32_to_fp16(v)) : v;
}

__device__ __forceinline__ float cache_value(const void* cache, int64_t i, bool f16) {
  return f16 ? ::orcd::fp16_to_f32(static_cast<const uint16_t*>(cache)[i])
             : static_cast<const float*>(cache)[i];
}

__global__ void __launch_bounds__(kAttentionThreads) attention_kernel(AttentionArgs a) {
  __shared__ float q_s[kMaxHeadDim];
  __shared__ float o_s[kMaxHeadDim];
  __shared__ float p_s[kAttentionThreads];
  __shared__ float scratch[kWarp];
  const int64_t h = blockIdx.x, t = blockIdx.y;
  const int64_t d = a.head_dim;
  const int64_t g = h / (a.n_head / a.n_head_kv);
  const int64_t pos0 = a.step->pos0;
  const int64_t pos = pos0 + t;
  const int64_t first = a.window > 0 && pos - a.window + 1 > 0 ? pos - a.window + 1 : 0;
  const int64_t kv_width = a.n_head_kv * d;
  const float* qh = a.q + t * a.n_head * d + h * d;
  for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    q_s[i] = qh[i];
    o_s[i] = 0.0f;
  }
  __syncthreads();

  // Element i of position j's key (value): the batch or the cache's ring slot.
  auto key = [&](const float* batch, const void* cache, int64_t j, int64_t i) {
    if (j >= pos0) return round_like_cache(batch[(j - pos0) * kv_width + g * d + i], a.f16);
    return cache_value(cache, (g * a.capacity + j % a.capacity) * d + i, a.f16);
  };

  float running_max = -INFINITY, running_sum = 0.0f;
  for (int64_t tile = first; tile <= pos; tile += blockDim.x) {
    const int64_t j = tile + threadIdx.x;
    float score = -INFINITY;
    if (j <= pos) {
      float dot = 0.0f;
      for (int64_t i = 0; i < d; ++i) dot = fmaf(q_s[i], key(a.k_new, a.k_cache, j, i), dot);
      score = dot * a.scale;
      if (a.softcap > 0.0f) score = a.softcap * tanhf(score / a.softcap);
    }
    const float tile_max = block_max(score, scratch);
    const float new_max = fmaxf(running_max, tile_max);
    const float p = j <= pos ? expf(score - new_max) : 0.0f;
    p_s[threadIdx.x] = p;
    const float tile_sum = block_sum(p, scratch);       // its barriers also publish p_s
    const float rescale = expf(running_max - new_max);  // 0 on the first tile
    running_sum = running_sum * rescale + tile_sum;
    running_max = new_max;
    const int64_t count = pos - tile + 1 < blockDim.x ? pos - tile + 1 : blockDim.x;
    for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
      float acc = o_s[i] * rescale;
      for (int64_t jj = 0; jj < count; ++jj)
        acc = fmaf(p_s[jj], key(a.v_new, a.v_cache, tile + jj, i), acc);
      o_s[i] = acc;
    }
    __syncthreads();  // p_s is rewritten by the next tile
  }
  float scale = 1.0f, sum = running_sum;
  if (a.sinks) {
    const float sink = a.sinks[h];
    const float m = fmaxf(running_max, sink);
    scale = expf(running_max - m);
    sum = running_sum * scale + expf(sink - m);
  }
  float* oh = a.o + t * a.n_head * d + h * d;
  for (int64_t i = threadIdx.x; i < d; i += blockDim.x) oh[i] = o_s[i] * scale / sum;
}

// Stores the batch's last min(n_tokens, capacity) positions in the cache:
// one CTA per (kv head, token), threads over the head dimension.
__global__ void kv_store_kernel(AttentionArgs a) {
  const int64_t g = blockIdx.x, t = blockIdx.y;
  if (t < a.n_tokens - a.capacity) return;  // overwritten within this batch anyway
  const int64_t slot = (a.step->pos0 + t) % a.capacity;
  const int64_t d = a.head_dim;
  const int64_t from = t * a.n_head_kv * d + g * d;
  const int64_t to = (g * a.capacity + slot) * d;
  for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    if (a.f16) {
      static_cast<uint16_t*>(a.k_cache)[to + i] = ::orcd::f32_to_fp16(a.k_new[from + i]);
      static_cast<uint16_t*>(a.v_cache)[to + i] = ::orcd::f32_to_fp16(a.v_new[from + i]);
    } else {
      static_cast<float*>(a.k_cache)[to + i] = a.k_new[from + i];
      static_cast<float*>(a.v_cache)[to + i] = a.v_new[from + i];
    }
  }
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ATTENTION_CUH_
