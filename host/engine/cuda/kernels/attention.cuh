// ATTENTION's shared parts: where a position's K and V rows are (the cache
// layout of kv_cache.h, or the step's own batch), the values the cache holds
// (f16, f32, q8_0), the split-KV parts' combination and the cache's store.
// Semantics of cpu/attention_adapter.cc: causal, sliding window, GQA, softcap,
// sinks in the denominator only; a step's own keys and values are read from
// the batch rounded like the cache (a windowed ring may already have dropped
// them), and the batch is stored into the cache afterwards. The attention
// kernels themselves are attention_tiles.cuh's.
//
// A step holds rows of one or more sequences (StepRow): each row attends its
// own sequence, through that sequence's block table (full-context layers) or
// ring slot (sliding-window layers), in the cache layout of kv_cache.h.
//
// Decode rows split each row's span over (n_head, kv_splits, rows) CTAs and
// merge the parts (attention_split_kernel, attention_combine_kernel): the
// launch depends on neither the positions (they come from StepValues) nor
// the rows' sequences, so a decode step's launch never changes.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_ATTENTION_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_ATTENTION_CUH_

#include "host/engine/cuda/kernels/common.cuh"
#include "host/engine/cuda/kernels/quantize.cuh"
#include "orcd/cpp/q8_0_block.h"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

constexpr int kAttentionThreads = 128;

__device__ __forceinline__ float round_like_cache(float v, bool f16) {
  return f16 ? ::orcd::fp16_to_f32(::orcd::f32_to_fp16(v)) : v;
}

__device__ __forceinline__ float cache_value(const void* cache, int64_t i, bool f16) {
  return f16 ? half_to_float(static_cast<const uint16_t*>(cache)[i])
             : static_cast<const float*>(cache)[i];
}

// q8_0 caches (ggml's block_q8_0: an f16 scale, then 32 int8; 34 bytes per
// 32 values; rows are whole blocks). A block of 32 values is rounded as
// quantize_row_q8_0_ref does (the CPU's KV rounding): scale d = amax / 127,
// q = roundf(x / d), read back as q * f16(d). The batch's own keys and values
// are rounded so as they are read, as the cache will hold them.
constexpr int kQ8Block = ::orcd::kQ8_0BlockElems;
constexpr int kQ8BlockBytes = 34;

struct Q8Scale {
  float inv = 0.0f;  // 1 / d (0 when d is 0)
  float d = 0.0f;    // the stored f16 scale, as a float
};

__device__ __forceinline__ Q8Scale q8_scale_of(const float* x, const float* bias) {
  float amax = 0.0f;
  for (int j = 0; j < kQ8Block; ++j) amax = fmaxf(amax, fabsf(bias ? x[j] + bias[j] : x[j]));
  const ::orcd::Q8_0Scale s = ::orcd::q8_0_scale(amax);
  return {s.inv, ::orcd::fp16_to_f32(::orcd::f32_to_fp16(s.d))};
}

// x's 8-bit value at scale s (what the cache stores, and what the batch's
// own rows are read as before they are stored).
__device__ __forceinline__ int8_t q8_quantized(float x, Q8Scale s) {
  return ::orcd::q8_0_round(x, s.inv);
}

__device__ __forceinline__ const uint8_t* q8_block(const void* cache, int64_t element) {
  return static_cast<const uint8_t*>(cache) + element / kQ8Block * kQ8BlockBytes;
}

__device__ __forceinline__ float q8_cache_scale(const void* cache, int64_t element) {
  const uint8_t* b = q8_block(cache, element);
  return half_to_float(static_cast<uint16_t>(b[0] | (b[1] << 8)));
}

__device__ __forceinline__ float q8_cache_value(const void* cache, int64_t element, float d) {
  return static_cast<float>(static_cast<int8_t>(q8_block(cache, element)[2 + element % kQ8Block])) *
         d;
}

// Element c of the batch's token t in k_new / v_new, with its bias where the
// lowering moved V's bias here (the same bits as the MATMUL adding it).
__device__ __forceinline__ float batch_value(const float* batch, const float* bias, int64_t width,
                                             int64_t t, int64_t c) {
  return bias ? batch[t * width + c] + bias[c] : batch[t * width + c];
}

// Element index of kv head g's row of position j in the cache, for the
// sequence of row r (kv_cache.h's KvCache::Layer::RowIndex).
__device__ __forceinline__ int64_t cache_row(const AttentionArgs& a, const StepRow& r, int64_t j,
                                             int64_t g) {
  int64_t block, offset;
  if (a.ring) {
    const int64_t slot = j % a.capacity;
    block = r.ring_slot * (a.capacity / a.block_tokens) + slot / a.block_tokens;
    offset = slot % a.block_tokens;
  } else {
    block = a.step->tables[r.table + j / a.block_tokens];
    offset = j % a.block_tokens;
  }
  return ((block * a.n_head_kv + g) * a.block_tokens + offset) * a.head_dim;
}

// The first position head h's token t attends to, and its own position.
__device__ __forceinline__ void attended_span(const AttentionArgs& a, int64_t t, int64_t* first,
                                              int64_t* pos) {
  *pos = a.step->rows[t].position;
  *first = a.window > 0 && *pos - a.window + 1 > 0 ? *pos - a.window + 1 : 0;
}

// A q8_0 block's scale from its largest magnitude, as the cache's store
// computes it (q8_scale_of): lane l holds the block's element l. The start
// at 0 keeps an all-NaN block's amax at 0, as the sequential fmaxf does.
__device__ __forceinline__ Q8Scale q8_warp_scale(float x) {
  const ::orcd::Q8_0Scale s = ::orcd::q8_0_scale(warp_max(fmaxf(0.0f, fabsf(x))));
  return {s.inv, ::orcd::fp16_to_f32(::orcd::f32_to_fp16(s.d))};
}

// out[i] = o[i] / (sum + the sink's share), the sink in the denominator only.
__device__ __forceinline__ void write_normalized(const AttentionArgs& a, int64_t h, int64_t t,
                                                 const float* o, float max, float sum) {
  float scale = 1.0f;
  if (a.sinks) {
    const float sink = a.sinks[h];
    const float m = fmaxf(max, sink);
    scale = expf(max - m);
    sum = sum * scale + expf(sink - m);
  }
  float* oh = a.o + t * a.n_head * a.head_dim + h * a.head_dim;
  for (int64_t i = threadIdx.x; i < a.head_dim; i += blockDim.x) oh[i] = o[i] * scale / sum;
  if (a.q8 == nullptr) return;
  __syncthreads();  // oh written by every thread of the CTA
  const int64_t runs = a.head_dim / 32;
  for (int64_t run = threadIdx.x / kWarp; run < runs; run += blockDim.x / kWarp)
    quantize_run(oh[run * 32 + threadIdx.x % kWarp], a.q8 + (t * a.n_head + h) * runs + run);
}

// Token t's K and V of kv head g into its sequence's cache.
__device__ __forceinline__ void store_kv(const AttentionArgs& a, int64_t g, int64_t t) {
  const StepRow r = a.step->rows[t];
  const int64_t d = a.head_dim;
  const int64_t width = a.n_head_kv * d;
  const int64_t to = cache_row(a, r, r.position, g);
  if (a.q8_kv) {  // a thread per block of 32 values: its scale, then its int8
    for (int64_t b = threadIdx.x * kQ8Block; b < d; b += blockDim.x * kQ8Block) {
      const float* bias = a.v_bias ? a.v_bias + g * d + b : nullptr;
      const float* rows[2] = {a.k_new + t * width + g * d + b, a.v_new + t * width + g * d + b};
      void* caches[2] = {a.k_cache, a.v_cache};
      for (int side = 0; side < 2; ++side) {
        const float* bias_here = side == 1 ? bias : nullptr;
        const Q8Scale s = q8_scale_of(rows[side], bias_here);
        uint8_t* out = static_cast<uint8_t*>(caches[side]) + (to + b) / kQ8Block * kQ8BlockBytes;
        const uint16_t h = ::orcd::f32_to_fp16(s.d);
        out[0] = static_cast<uint8_t>(h & 0xFF);
        out[1] = static_cast<uint8_t>(h >> 8);
        for (int j = 0; j < kQ8Block; ++j) {
          const float x = bias_here ? rows[side][j] + bias_here[j] : rows[side][j];
          out[2 + j] = static_cast<uint8_t>(q8_quantized(x, s));
        }
      }
    }
    return;
  }
  for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    const float k = a.k_new[t * width + g * d + i];
    const float v = batch_value(a.v_new, a.v_bias, width, t, g * d + i);
    if (a.f16) {
      static_cast<uint16_t*>(a.k_cache)[to + i] = ::orcd::f32_to_fp16(k);
      static_cast<uint16_t*>(a.v_cache)[to + i] = ::orcd::f32_to_fp16(v);
    } else {
      static_cast<float*>(a.k_cache)[to + i] = k;
      static_cast<float*>(a.v_cache)[to + i] = v;
    }
  }
}

// Merges row t's head h's parts (rescaled to their common max), then normalizes.
__global__ void __launch_bounds__(kAttentionThreads) attention_combine_kernel(AttentionArgs a) {
  __shared__ float o_s[kMaxHeadDim];
  const int64_t h = blockIdx.x, local = blockIdx.y, d = a.head_dim;
  const int64_t t = a.row0 + local;
  const float* parts = a.partial + (local * a.n_head + h) * a.kv_splits * (d + 2);
  float max = -INFINITY;
  for (int64_t s = 0; s < a.kv_splits; ++s) max = fmaxf(max, parts[s * (d + 2) + d]);
  float sum = 0.0f;
  for (int64_t s = 0; s < a.kv_splits; ++s) {
    const float* part = parts + s * (d + 2);
    if (part[d + 1] > 0.0f) sum += part[d + 1] * expf(part[d] - max);  // empty parts add nothing
  }
  for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    float acc = 0.0f;
    for (int64_t s = 0; s < a.kv_splits; ++s) {
      const float* part = parts + s * (d + 2);
      if (part[d + 1] > 0.0f) acc += part[i] * expf(part[d] - max);
    }
    o_s[i] = acc;
  }
  __syncthreads();
  write_normalized(a, h, t, o_s, max, sum);
  // The token's K and V go to the cache here, once every part has read the
  // cache (the split kernel finished): no launch of kv_store_kernel.
  if (h < a.n_head_kv) store_kv(a, h, t);
}

// Stores each sequence's last min(its rows, capacity) positions of the step
// in the cache: one CTA per (kv head, token), threads over the head dimension.
__global__ void kv_store_kernel(AttentionArgs a) {
  const int64_t g = blockIdx.x, t = a.row0 + blockIdx.y;
  const StepRow r = a.step->rows[t];
  if (r.position < r.seq_pos0 + r.seq_rows - a.capacity) return;  // overwritten within this step
  store_kv(a, g, t);
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ATTENTION_CUH_
