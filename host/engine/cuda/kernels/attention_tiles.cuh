// The ATTENTION kernels, flash-attention style over tiles of kKeyTile
// positions. Per tile: each key's row address, the K rows into shared memory
// as floats (their cache values, so the math never sees the cache's element
// type; threads over elements: coalesced), every (query, key) score by a lane
// per key, each query's online softmax update by one warp (lanes = the tile's
// keys), then the V rows into the same shared buffer and each query's output
// accumulated in registers. Shuffles are per tile, not per key.
//
// Prompt rows (attention_prefill_kernel): one CTA per (head, kPrefillQueries
// consecutive rows), which share every K and V tile it reads (one CTA per
// (head, row) read its row's whole span alone: a 512-token prompt read each
// key up to 512 times per head). Decode rows (attention_split_kernel): one
// CTA per (head, part of the row's span, row), the parts merged by
// attention.cuh's combine.
//
// A row's bits depend only on its own span (and, split, on its part): tiles
// sit at multiples of kKeyTile in absolute positions, a query updates only on
// tiles holding its keys, and its sums run over exactly its keys, so which
// rows share its CTA (a chunk's boundaries, a prefix-cache hit, another
// sequence's rows) changes nothing.
#ifndef ORCD_HOST_ENGINE_CUDA_KERNELS_ATTENTION_TILES_CUH_
#define ORCD_HOST_ENGINE_CUDA_KERNELS_ATTENTION_TILES_CUH_

#include "host/engine/cuda/kernels/attention.cuh"

namespace orcd::engine::cuda::ORCD_CUDA_VARIANT {

constexpr int kPrefillQueries = 8;  // rows per CTA; two per warp of kAttentionThreads
constexpr int kKeyTile = kWarp;     // a warp's lanes score one tile for one query
constexpr int kQueryThreads = kAttentionThreads / kPrefillQueries;  // output lanes per row
constexpr int kMaxOutPerThread = kMaxHeadDim / kQueryThreads;
static_assert(kAttentionThreads == 4 * kWarp && kPrefillQueries == 8,
              "each warp runs the softmax of queries w and w + 4");

// Shared memory of one CTA (42 KB at kMaxHeadDim 256: under the 48 KB a
// kernel may declare statically).
struct KeyTiles {
  float q[kPrefillQueries][kMaxHeadDim];
  float kv[kKeyTile][kMaxHeadDim + 1];  // +1: the score loop's row reads are conflict-free
  float p[kPrefillQueries][kKeyTile];
  float rescale[kPrefillQueries];
  float max[kPrefillQueries], sum[kPrefillQueries];
  // Each query's keys in the tile, [lo, hi]; lo > hi: none.
  int32_t key_lo[kPrefillQueries], key_hi[kPrefillQueries];
  int64_t where[kKeyTile];
};

// Loads positions [tile, tile + kKeyTile) ∩ [lo, hi] of kv head g's K (side 0)
// or V (side 1) into t.kv as the values the cache holds (or will hold).
// Every thread calls; with q8_0 a warp takes one block of 32 values (d % 32
// == 0), so its scale is a warp reduction.
__device__ __forceinline__ void load_kv_tile(const AttentionArgs& a, int64_t g, int64_t tile,
                                             int64_t lo, int64_t hi, int side, KeyTiles& t) {
  const int64_t d = a.head_dim, kv_width = a.n_head_kv * d;
  const float* batch = side == 0 ? a.k_new : a.v_new;
  const float* bias = side == 0 ? nullptr : a.v_bias;
  const void* cache = side == 0 ? a.k_cache : a.v_cache;
  for (int64_t e = threadIdx.x; e < kKeyTile * d; e += blockDim.x) {
    const int64_t k = e / d, i = e % d, j = tile + k;
    if (j < lo || j > hi) continue;  // warp-uniform for q8_0: a block is one key's
    const int64_t where = t.where[k];
    float v;
    if (a.q8_kv) {
      if (where < 0) {
        const float x = batch_value(batch, bias, kv_width, -1 - where, g * d + i);
        const Q8Scale s = q8_warp_scale(x);
        v = q8_quantized(x, s) * s.d;
      } else {
        v = q8_cache_value(cache, where + i, q8_cache_scale(cache, where + i));
      }
    } else if (where < 0) {
      v = round_like_cache(batch_value(batch, bias, kv_width, -1 - where, g * d + i), a.f16);
    } else {
      v = cache_value(cache, where + i, a.f16);
    }
    t.kv[k][i] = v;
  }
}

// This thread's outputs: row oq = threadIdx.x / kQueryThreads of the CTA's,
// dimensions lane_o, + kQueryThreads, ... (lane_o = threadIdx.x % kQueryThreads).
using RowOutputs = float[kMaxOutPerThread];

// Rows [r0, r1) of one sequence, head h, over positions [clo, chi] of each
// row's span: leaves each row's running max and sum in t.max / t.sum and this
// thread's outputs in o, unnormalized (relative to the max). Every thread
// calls; a row with no position there keeps max -inf, sum 0, outputs 0.
__device__ __forceinline__ void attend_tiles(const AttentionArgs& a, int64_t h, int64_t r0,
                                             int64_t r1, int64_t clo, int64_t chi, KeyTiles& t,
                                             RowOutputs& o) {
  const int64_t d = a.head_dim, nq = r1 - r0;
  const int64_t g = h / (a.n_head / a.n_head_kv);
  const StepRow seq = a.step->rows[r0];
  const int lane = static_cast<int>(threadIdx.x % kWarp),
            warp = static_cast<int>(threadIdx.x / kWarp);
  for (int64_t e = threadIdx.x; e < nq * d; e += blockDim.x)
    t.q[e / d][e % d] = a.q[(r0 + e / d) * a.n_head * d + h * d + e % d];
  int64_t lo, hi, unused;
  attended_span(a, r0, &lo, &unused);  // rows of one sequence: spans grow with the row
  attended_span(a, r1 - 1, &unused, &hi);
  lo = lo > clo ? lo : clo;
  hi = hi < chi ? hi : chi;
  // Each warp's two queries' running max and sum (the same in every lane).
  float run_max[2] = {-INFINITY, -INFINITY}, run_sum[2] = {0.0f, 0.0f};
  const int64_t oq = threadIdx.x / kQueryThreads, lane_o = threadIdx.x % kQueryThreads;
  for (float& v : o) v = 0.0f;

  for (int64_t tile = lo / kKeyTile * kKeyTile; lo <= hi && tile <= hi; tile += kKeyTile) {
    if (threadIdx.x < kKeyTile) {
      const int64_t j = tile + threadIdx.x;
      if (j >= lo && j <= hi) {
        t.where[threadIdx.x] = j >= seq.seq_pos0 ? -1 - (seq.seq_first_row + j - seq.seq_pos0)
                                                 : cache_row(a, seq, j, g);
      }
    }
    __syncthreads();  // where published (and q, on the first tile)
    load_kv_tile(a, g, tile, lo, hi, 0, t);
    __syncthreads();               // K tile loaded
    for (int s = 0; s < 2; ++s) {  // warp-uniform: one query at a time
      const int q = warp + 4 * s;
      if (q >= nq) continue;
      int64_t first, pos;
      attended_span(a, r0 + q, &first, &pos);
      first = first > clo ? first : clo;
      pos = pos < chi ? pos : chi;
      const int64_t klo = first > tile ? first - tile : 0;
      const int64_t khi = pos < tile + kKeyTile - 1 ? pos - tile : kKeyTile - 1;
      if (lane == 0) {
        t.key_lo[q] = static_cast<int32_t>(klo);
        t.key_hi[q] = static_cast<int32_t>(khi);
      }
      if (klo > khi) continue;  // no key of this query here: its state is untouched
      const bool mine = lane >= klo && lane <= khi;
      float score = -INFINITY;
      if (mine) {
        float dot = 0.0f;
        for (int64_t i = 0; i < d; ++i) dot = fmaf(t.q[q][i], t.kv[lane][i], dot);
        score = dot * a.scale;
        if (a.softcap > 0.0f) score = a.softcap * tanhf(score / a.softcap);
      }
      const float new_max = fmaxf(run_max[s], warp_max(score));
      const float p = mine ? expf(score - new_max) : 0.0f;
      const float tile_sum = warp_sum(p);
      const float rescale = expf(run_max[s] - new_max);  // 0 on the query's first tile
      run_sum[s] = run_sum[s] * rescale + tile_sum;
      run_max[s] = new_max;
      t.p[q][lane] = p;
      if (lane == 0) t.rescale[q] = rescale;
    }
    __syncthreads();  // scores, ranges and rescales published; K no longer read
    load_kv_tile(a, g, tile, lo, hi, 1, t);
    __syncthreads();  // V tile loaded
    if (oq < nq && t.key_lo[oq] <= t.key_hi[oq]) {
      const float rescale = t.rescale[oq];
      for (int c = 0; c < kMaxOutPerThread; ++c) {
        const int64_t i = lane_o + c * kQueryThreads;
        if (i >= d) break;
        float acc = o[c] * rescale;
        for (int k = t.key_lo[oq]; k <= t.key_hi[oq]; ++k) acc = fmaf(t.p[oq][k], t.kv[k][i], acc);
        o[c] = acc;
      }
    }
    __syncthreads();  // where, kv, p and ranges are rewritten by the next tile
  }
  for (int s = 0; s < 2; ++s) {
    const int q = warp + 4 * s;
    if (q < nq && lane == 0) {
      t.max[q] = run_max[s];
      t.sum[q] = run_sum[s];
    }
  }
  __syncthreads();  // t.max, t.sum published
}

// Rows [r0, r1)'s outputs normalized into a.o: out = o / (sum + the sink's
// share), the sink in the denominator only; with a.q8, the one row also
// rounded to 8 bits. Every thread calls.
__device__ __forceinline__ void write_rows(const AttentionArgs& a, int64_t h, int64_t r0,
                                           int64_t r1, const KeyTiles& t, const RowOutputs& o) {
  const int64_t d = a.head_dim, nq = r1 - r0;
  const int64_t oq = threadIdx.x / kQueryThreads, lane_o = threadIdx.x % kQueryThreads;
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const int warp = static_cast<int>(threadIdx.x / kWarp);
  if (oq < nq) {
    float scale = 1.0f, sum = t.sum[oq];
    if (a.sinks) {
      const float sink = a.sinks[h], m = fmaxf(t.max[oq], sink);
      scale = expf(t.max[oq] - m);
      sum = sum * scale + expf(sink - m);
    }
    float* out = a.o + (r0 + oq) * a.n_head * d + h * d;
    for (int c = 0; c < kMaxOutPerThread; ++c) {
      const int64_t i = lane_o + c * kQueryThreads;
      if (i >= d) break;
      out[i] = o[c] * scale / sum;
    }
  }
  if (a.q8 != nullptr) {  // one row (Attention() checks it), d % 32 == 0
    __syncthreads();      // the row written by every thread of the CTA
    const float* out = a.o + r0 * a.n_head * d + h * d;
    for (int64_t run = warp; run < d / 32; run += blockDim.x / kWarp)
      quantize_run(out[run * 32 + lane], a.q8 + (r0 * a.n_head + h) * (d / 32) + run);
  }
  __syncthreads();  // t is reused by the next rows
}

__global__ void __launch_bounds__(kAttentionThreads) attention_prefill_kernel(AttentionArgs a) {
  __shared__ KeyTiles tiles;
  const int64_t h = blockIdx.x;
  const int64_t begin = a.row0 + static_cast<int64_t>(blockIdx.y) * kPrefillQueries;
  const int64_t last = a.row0 + a.n_tokens;
  const int64_t end = begin + kPrefillQueries < last ? begin + kPrefillQueries : last;
  // The CTA's rows, one sequence at a time (a sequence's rows are contiguous).
  for (int64_t r0 = begin; r0 < end;) {
    const StepRow r = a.step->rows[r0];
    const int64_t seq_end = r.seq_first_row + r.seq_rows;
    const int64_t r1 = seq_end < end ? seq_end : end;
    RowOutputs o;
    attend_tiles(a, h, r0, r1, 0, INT64_MAX, tiles, o);
    write_rows(a, h, r0, r1, tiles, o);
    r0 = r1;
  }
}

// Split-KV (flash-decoding) for decode rows: CTA (h, s, t) attends the s-th
// of a.kv_splits equal parts of row row0 + t's span and leaves its unnormalized
// output, max and sum in a.partial[((t * n_head + h) * kv_splits + s) *
// (d + 2) ..]. The number of parts is fixed per launch (graph capture); their
// length follows the position. A row's result does not depend on the others.
__global__ void __launch_bounds__(kAttentionThreads) attention_split_kernel(AttentionArgs a) {
  __shared__ KeyTiles tiles;
  const int64_t h = blockIdx.x, split = blockIdx.y, local = blockIdx.z, d = a.head_dim;
  const int64_t t = a.row0 + local;
  int64_t first, pos;
  attended_span(a, t, &first, &pos);
  const int64_t per = (pos - first + a.kv_splits) / a.kv_splits;  // ceil(span / splits)
  const int64_t lo = first + split * per;
  const int64_t hi = lo + per - 1 < pos ? lo + per - 1 : pos;
  RowOutputs o;
  attend_tiles(a, h, t, t + 1, lo, hi, tiles, o);  // lo > hi: an empty part
  float* part = a.partial + ((local * a.n_head + h) * a.kv_splits + split) * (d + 2);
  if (threadIdx.x < kQueryThreads) {  // row 0's output lanes
    for (int c = 0; c < kMaxOutPerThread; ++c) {
      const int64_t i = threadIdx.x + c * kQueryThreads;
      if (i >= d) break;
      part[i] = o[c];
    }
  }
  if (threadIdx.x == 0) {
    part[d] = tiles.max[0];
    part[d + 1] = tiles.sum[0];
  }
}

}  // namespace orcd::engine::cuda::ORCD_CUDA_VARIANT

#endif  // ORCD_HOST_ENGINE_CUDA_KERNELS_ATTENTION_TILES_CUH_
