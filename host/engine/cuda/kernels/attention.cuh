// ATTENTION: one CTA per (head, token), flash style: keys in tiles of
// blockDim.x (one score per thread), a running max and sum, and the output
// row accumulated in shared memory by dimension. Semantics of
// cpu/attention_adapter.cc: causal, sliding window, GQA, softcap, sinks in
// the denominator only; a step's own keys and values are read from the batch
// rounded like the cache (a windowed ring may already have dropped them), and
// a second kernel stores the batch into the cache afterwards.
//
// A step holds rows of one or more sequences (StepRow): each row attends its
// own sequence, through that sequence's block table (full-context layers) or
// ring slot (sliding-window layers), in the cache layout of kv_cache.h.
//
// Launch shape: (n_head, n_tokens) CTAs whatever the positions, so a decode
// step's launch never changes; the positions come from StepValues. Decode rows
// split each row's span over (n_head, kv_splits, rows) CTAs instead and merge
// the parts (attention_split_kernel, attention_combine_kernel).
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
  return f16 ? ::orcd::fp16_to_f32(static_cast<const uint16_t*>(cache)[i])
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
  return ::orcd::fp16_to_f32(static_cast<uint16_t>(b[0] | (b[1] << 8)));
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

// Shared memory and running state of one (head, token)'s attention.
struct AttendState {
  float* q_s;        // [d]
  float* o_s;        // [d], unnormalized, relative to running_max
  float* p_s;        // [blockDim.x]
  int64_t* where_s;  // [blockDim.x]: where each key's row is (attend's source())
  float* scratch;    // [kWarp]
  Q8Scale* vq_s;     // q8_0: [blockDim.x][d / 32], the scales of each key's value row
  float running_max = -INFINITY;
  float running_sum = 0.0f;
};

// The first position head h's token t attends to, and its own position.
__device__ __forceinline__ void attended_span(const AttentionArgs& a, int64_t t, int64_t* first,
                                              int64_t* pos) {
  *pos = a.step->rows[t].position;
  *first = a.window > 0 && *pos - a.window + 1 > 0 ? *pos - a.window + 1 : 0;
}

// Loads q and clears o; then attends positions [lo, hi] (all of the block's
// threads; lo > hi attends nothing).
__device__ __forceinline__ void attend(const AttentionArgs& a, int64_t h, int64_t t, int64_t lo,
                                       int64_t hi, AttendState& st) {
  const int64_t d = a.head_dim;
  const int64_t g = h / (a.n_head / a.n_head_kv);
  const StepRow r = a.step->rows[t];
  const int64_t kv_width = a.n_head_kv * d;
  const float* qh = a.q + t * a.n_head * d + h * d;
  for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    st.q_s[i] = qh[i];
    st.o_s[i] = 0.0f;
  }
  __syncthreads();

  // Where position j's key and value are: -1 - its batch row when this step
  // holds it, else its row's element index in the cache.
  auto source = [&](int64_t j) -> int64_t {
    if (j >= r.seq_pos0) return -1 - (r.seq_first_row + j - r.seq_pos0);
    return cache_row(a, r, j, g);
  };
  auto element = [&](const float* batch, const float* bias, const void* cache, int64_t where,
                     int64_t i) {
    if (where < 0)
      return round_like_cache(batch_value(batch, bias, kv_width, -1 - where, g * d + i), a.f16);
    return cache_value(cache, where + i, a.f16);
  };

  // q8_0: a block's scale, from the cache or computed from the batch's row.
  auto q8_scale = [&](const float* batch, const float* bias, const void* cache, int64_t where,
                      int64_t i) -> Q8Scale {
    if (where < 0) {
      return q8_scale_of(batch + (-1 - where) * kv_width + g * d + i,
                         bias ? bias + g * d + i : nullptr);
    }
    return {0.0f, q8_cache_scale(cache, where + i)};
  };
  auto q8_element = [&](const float* batch, const float* bias, const void* cache, int64_t where,
                        int64_t i, Q8Scale s) {
    if (where < 0)
      return q8_quantized(batch_value(batch, bias, kv_width, -1 - where, g * d + i), s) * s.d;
    return q8_cache_value(cache, where + i, s.d);
  };

  for (int64_t tile = lo; tile <= hi; tile += blockDim.x) {
    const int64_t j = tile + threadIdx.x;
    float score = -INFINITY;
    if (j <= hi) {
      const int64_t where = source(j);
      st.where_s[threadIdx.x] = where;
      float dot = 0.0f;
      if (a.q8_kv) {
        for (int64_t b = 0; b < d; b += kQ8Block) {
          const Q8Scale s = q8_scale(a.k_new, nullptr, a.k_cache, where, b);
          for (int64_t i = b; i < b + kQ8Block; ++i)
            dot = fmaf(st.q_s[i], q8_element(a.k_new, nullptr, a.k_cache, where, i, s), dot);
          st.vq_s[threadIdx.x * (kMaxHeadDim / kQ8Block) + b / kQ8Block] =
              q8_scale(a.v_new, a.v_bias, a.v_cache, where, b);
        }
      } else {
        for (int64_t i = 0; i < d; ++i)
          dot = fmaf(st.q_s[i], element(a.k_new, nullptr, a.k_cache, where, i), dot);
      }
      score = dot * a.scale;
      if (a.softcap > 0.0f) score = a.softcap * tanhf(score / a.softcap);
    }
    const float tile_max = block_max(score, st.scratch);
    const float new_max = fmaxf(st.running_max, tile_max);
    const float p = j <= hi ? expf(score - new_max) : 0.0f;
    st.p_s[threadIdx.x] = p;
    const float tile_sum = block_sum(p, st.scratch);       // its barriers also publish p_s, where_s
    const float rescale = expf(st.running_max - new_max);  // 0 on the first tile
    st.running_sum = st.running_sum * rescale + tile_sum;
    st.running_max = new_max;
    const int64_t count = hi - tile + 1 < blockDim.x ? hi - tile + 1 : blockDim.x;
    for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
      float acc = st.o_s[i] * rescale;
      if (a.q8_kv) {
        for (int64_t jj = 0; jj < count; ++jj) {
          const Q8Scale s = st.vq_s[jj * (kMaxHeadDim / kQ8Block) + i / kQ8Block];
          acc =
              fmaf(st.p_s[jj], q8_element(a.v_new, a.v_bias, a.v_cache, st.where_s[jj], i, s), acc);
        }
      } else {
        for (int64_t jj = 0; jj < count; ++jj)
          acc = fmaf(st.p_s[jj], element(a.v_new, a.v_bias, a.v_cache, st.where_s[jj], i), acc);
      }
      st.o_s[i] = acc;
    }
    __syncthreads();  // p_s and where_s are rewritten by the next tile
  }
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

__global__ void __launch_bounds__(kAttentionThreads) attention_kernel(AttentionArgs a) {
  __shared__ float q_s[kMaxHeadDim];
  __shared__ float o_s[kMaxHeadDim];
  __shared__ float p_s[kAttentionThreads];
  __shared__ int64_t where_s[kAttentionThreads];
  __shared__ float scratch[kWarp];
  __shared__ Q8Scale vq_s[kAttentionThreads * (kMaxHeadDim / kQ8Block)];
  const int64_t h = blockIdx.x, t = blockIdx.y;
  int64_t first, pos;
  attended_span(a, t, &first, &pos);
  AttendState st{q_s, o_s, p_s, where_s, scratch, vq_s};
  attend(a, h, t, first, pos, st);
  write_normalized(a, h, t, o_s, st.running_max, st.running_sum);
}

// Split-KV (flash-decoding) for decode rows: CTA (h, s, t) attends the s-th
// of a.kv_splits equal parts of row t's span and leaves its unnormalized
// output, max and sum in a.partial[((t * n_head + h) * kv_splits + s) *
// (d + 2) ..]. The number of parts is fixed per launch (graph capture); their
// length follows the position. A row's result does not depend on the others.
__global__ void __launch_bounds__(kAttentionThreads) attention_split_kernel(AttentionArgs a) {
  __shared__ float q_s[kMaxHeadDim];
  __shared__ float o_s[kMaxHeadDim];
  __shared__ float p_s[kAttentionThreads];
  __shared__ int64_t where_s[kAttentionThreads];
  __shared__ float scratch[kWarp];
  __shared__ Q8Scale vq_s[kAttentionThreads * (kMaxHeadDim / kQ8Block)];
  const int64_t h = blockIdx.x, split = blockIdx.y, t = blockIdx.z;
  int64_t first, pos;
  attended_span(a, t, &first, &pos);
  const int64_t per = (pos - first + a.kv_splits) / a.kv_splits;  // ceil(span / splits)
  const int64_t lo = first + split * per;
  const int64_t hi = lo + per - 1 < pos ? lo + per - 1 : pos;
  AttendState st{q_s, o_s, p_s, where_s, scratch, vq_s};
  attend(a, h, t, lo, hi, st);
  float* part = a.partial + ((t * a.n_head + h) * a.kv_splits + split) * (a.head_dim + 2);
  for (int64_t i = threadIdx.x; i < a.head_dim; i += blockDim.x) part[i] = o_s[i];
  if (threadIdx.x == 0) {
    part[a.head_dim] = st.running_max;
    part[a.head_dim + 1] = st.running_sum;
  }
}

// Merges row t's head h's parts (rescaled to their common max), then normalizes.
__global__ void __launch_bounds__(kAttentionThreads) attention_combine_kernel(AttentionArgs a) {
  __shared__ float o_s[kMaxHeadDim];
  const int64_t h = blockIdx.x, t = blockIdx.y, d = a.head_dim;
  const float* parts = a.partial + (t * a.n_head + h) * a.kv_splits * (d + 2);
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
  const int64_t g = blockIdx.x, t = blockIdx.y;
  const StepRow r = a.step->rows[t];
  if (r.position < r.seq_pos0 + r.seq_rows - a.capacity) return;  // overwritten within this step
  store_kv(a, g, t);
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ATTENTION_CUH_
