// The CUDA kernels, generic over a quant type T (see block_codec.h): device
// code only, no runtime API, so that tests/quant/cuda_emulation_test.cc can
// also compile them for the host and run them thread by thread.
//
// Every kernel decodes weights with T::decode_chunk, the same code (and, as
// the library builds with --fmad=false, the same roundings) as the CPU, so
// get_rows is bit-identical to ggml's to_float. Dot products accumulate in f32
// with explicit fmaf.
#ifndef ORCD_QUANT_COMMON_CUDA_DEVICE_KERNELS_CUH_
#define ORCD_QUANT_COMMON_CUDA_DEVICE_KERNELS_CUH_

#include <stdint.h>

#include "common/block_codec.h"
#include "common/q8_dot.h"
#include "orcd/cpp/cuda_launch.h"  // the CUDA runtime, or the emulator (ORCD_CUDA_EMULATED)
#include "orcd/cpp/gated_activation.h"

namespace orcd::quant::cuda {

constexpr int kWarp = 32;

// get_rows: one CTA per output row, threads stride over the row's chunks.
constexpr int kGetRowsThreads = 256;

// matvec: each warp computes kMatvecRowsPerWarp rows, loading each slice of x
// once for all of them (x is re-read per row from L1, and for 4-bit weights
// x bytes outnumber weight bytes 7 to 1); kMatvecWarps warps per CTA.
constexpr int kMatvecRowsPerWarp = 2;
constexpr int kMatvecWarps = 4;
constexpr int kMatvecRowsPerCta = kMatvecRowsPerWarp * kMatvecWarps;
constexpr int kMatvecThreads = kMatvecWarps * kWarp;

// matmul: a CTA computes kTileRows x kTileTokens outputs, walking the columns
// in tiles of kTileK. Per tile it decodes each weight block it covers once
// into shared memory and reuses it for all kTileTokens tokens.
constexpr int kTileRows = 32;  // one per lane: coalesced y stores, conflict-free ws reads
constexpr int kTileTokens = 32;
constexpr int kTileK = 128;  // block_codec.h's tile rule: 16 chunks per row per tile
constexpr int kMatmulThreads = 256;
constexpr int kTokensPerThread = kTileTokens / (kMatmulThreads / kWarp);  // 4
constexpr int kChunksPerTileRow = kTileK / kChunkValues;                  // 16

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
  return v;
}

// kLen consecutive floats of x; vector loads when x is 16-byte aligned (runs
// start at multiples of kLen inside 32-float-aligned blocks).
template <int kLen, bool kAligned>
__device__ __forceinline__ void load_run(const float* __restrict__ p, float* out) {
  if constexpr (kAligned && kLen % 4 == 0) {
#pragma unroll
    for (int i = 0; i < kLen; i += 4) {
      const float4 v = *reinterpret_cast<const float4*>(p + i);
      out[i] = v.x;
      out[i + 1] = v.y;
      out[i + 2] = v.z;
      out[i + 3] = v.w;
    }
  } else if constexpr (kAligned && kLen == 2) {
    const float2 v = *reinterpret_cast<const float2*>(p);
    out[0] = v.x;
    out[1] = v.y;
  } else {
#pragma unroll
    for (int i = 0; i < kLen; ++i) out[i] = p[i];
  }
}

// A decoded value as get_rows writes it: the float, or its f16 bits (round
// to nearest even, as the host's to_half rounds the float).
__device__ __forceinline__ void store_value(float* p, float v) { *p = v; }
__device__ __forceinline__ void store_value(uint16_t* p, float v) { *p = ::orcd::f32_to_fp16(v); }

template <class T, class Out>
__global__ void __launch_bounds__(kGetRowsThreads)
    get_rows_kernel(const typename T::Block* __restrict__ w, int64_t row_blocks,
                    const int32_t* __restrict__ ids, Out* __restrict__ out, int64_t cols) {
  constexpr int kRuns = kChunkValues / T::kRunLen;
  const int64_t i = blockIdx.x;
  const typename T::Block* row = w + static_cast<int64_t>(ids[i]) * row_blocks;
  Out* dst = out + i * cols;
  const int64_t n_chunks = row_blocks * T::kChunks;
  for (int64_t q = threadIdx.x; q < n_chunks; q += blockDim.x) {
    const int64_t b = q / T::kChunks;
    const int c = static_cast<int>(q % T::kChunks);
    float v[kChunkValues];
    T::decode_chunk(row[b], c, v);
    Out* o = dst + b * T::kElems;
#pragma unroll
    for (int r = 0; r < kRuns; ++r) {
#pragma unroll
      for (int k = 0; k < T::kRunLen; ++k)
        store_value(o + T::run_start(c, r) + k, v[r * T::kRunLen + k]);
    }
  }
}

// Lane l of a warp decodes chunk l % kChunks of blocks l / kChunks,
// + 32 / kChunks, ...: a warp step reads 32 / kChunks whole consecutive blocks
// of each of its rows. Weight bytes are read once; f32 FMA accumulation, then
// a shuffle tree per row.
template <class T, bool kAlignedX>
__device__ __forceinline__ void matvec_rows(const typename T::Block* __restrict__ w, int64_t rows,
                                            int64_t row_blocks, const float* __restrict__ x,
                                            float* __restrict__ y) {
  static_assert(kWarp % T::kChunks == 0, "a warp step must cover whole blocks");
  constexpr int kBlocksPerStep = kWarp / T::kChunks;
  constexpr int kRuns = kChunkValues / T::kRunLen;
  const int lane = threadIdx.x % kWarp;
  const int64_t warp = static_cast<int64_t>(blockIdx.x) * kMatvecWarps + threadIdx.x / kWarp;
  const int64_t row0 = warp * kMatvecRowsPerWarp;
  if (row0 >= rows) return;  // whole warps leave together: the shuffles below stay full-mask
  const int n_rows = rows - row0 < kMatvecRowsPerWarp ? static_cast<int>(rows - row0)
                                                      : kMatvecRowsPerWarp;  // warp-uniform
  const int c = lane % T::kChunks;
  const typename T::Block* w0 = w + row0 * row_blocks;
  float acc[kMatvecRowsPerWarp] = {};
#pragma unroll 2
  for (int64_t b = lane / T::kChunks; b < row_blocks; b += kBlocksPerStep) {
    float xv[kChunkValues];  // the x values this lane's chunk multiplies, shared by the rows
    const float* xb = x + b * T::kElems;
#pragma unroll
    for (int r = 0; r < kRuns; ++r)
      load_run<T::kRunLen, kAlignedX>(xb + T::run_start(c, r), xv + r * T::kRunLen);
#pragma unroll
    for (int j = 0; j < kMatvecRowsPerWarp; ++j) {
      if (j < n_rows) {
        float v[kChunkValues];
        T::decode_chunk(w0[j * row_blocks + b], c, v);
#pragma unroll
        for (int k = 0; k < kChunkValues; ++k) acc[j] = fmaf(v[k], xv[k], acc[j]);
      }
    }
  }
#pragma unroll
  for (int j = 0; j < kMatvecRowsPerWarp; ++j) {
    const float sum = warp_sum(acc[j]);
    if (lane == 0 && j < n_rows) y[row0 + j] = sum;
  }
}

template <class T, bool kAlignedX>
__global__ void __launch_bounds__(kMatvecThreads)
    matvec_kernel(const typename T::Block* __restrict__ w, int64_t rows, int64_t row_blocks,
                  const float* __restrict__ x, float* __restrict__ y) {
  matvec_rows<T, kAlignedX>(w, rows, row_blocks, x, y);
}

// Mixture-of-experts matvecs, one per (blockIdx.y = i): expert ids[i] of a
// stack of experts (expert_blocks blocks apart) times x row i / ids_per_x,
// into y row i. The ids stay in device memory: no host round trip.
template <class T, bool kAlignedX>
__global__ void __launch_bounds__(kMatvecThreads)
    matvec_ids_kernel(const typename T::Block* __restrict__ w, int64_t rows, int64_t row_blocks,
                      int64_t expert_blocks, const int32_t* __restrict__ ids, int64_t ids_per_x,
                      const float* __restrict__ x, int64_t x_stride, float* __restrict__ y,
                      int64_t y_stride) {
  const int64_t i = blockIdx.y;
  matvec_rows<T, kAlignedX>(w + static_cast<int64_t>(ids[i]) * expert_blocks, rows, row_blocks,
                            x + (i / ids_per_x) * x_stride, y + i * y_stride);
}

// matvec with 8-bit activations (q8_dot.h) and its siblings: kQ8Warps warps
// per CTA, `split` (q8_split) warps per row, so a CTA covers
// kQ8Warps / split rows.
constexpr int kQ8Warps = 4;
constexpr int kQ8Threads = kQ8Warps * kWarp;

// Warps per row (1, 2 or 4) for a matrix of `rows` rows of row_blocks blocks.
// One warp per row keeps too few bytes in flight when the rows are few: 896
// rows are 224 CTAs, under 2 per SM of a 132-SM H100. So the split doubles
// while the matrix has fewer than kQ8SplitBelowWarps row warps (2048: ~4 CTAs
// per SM) and each warp of a row still gets a warp step (32 / kQ8Parts
// blocks) of its own. A function of the shape only, never of the batch or the
// ids: every kernel of the family picks the same split for a shape, and the
// split fixes the summation order, so they all keep matvec_q8's bits.
constexpr int64_t kQ8SplitBelowWarps = 2048;

template <class T>
constexpr int q8_split(int64_t rows, int64_t row_blocks) {
  constexpr int64_t kBlocksPerStep = kWarp / T::kQ8Parts;
  int split = 1;
  while (split < kQ8Warps && rows * split < kQ8SplitBelowWarps &&
         row_blocks >= 2 * split * kBlocksPerStep)
    split *= 2;
  return split;
}

// CTAs for `rows` rows at `split` warps per row.
constexpr int64_t q8_ctas(int64_t rows, int split) {
  return (rows * split + kQ8Warps - 1) / kQ8Warps;
}

// Where a warp works: warp `part` of the `split` warps of row `row`. Past the
// last row (live false, row 0) a warp walks no blocks and writes nothing, but
// still takes part in q8_row_sums' barrier.
struct Q8Slot {
  int64_t row;
  int part, split;
  bool live;
  // The one thread that holds the row's sums after q8_row_sums.
  __device__ __forceinline__ bool writer() const {
    return live && part == 0 && threadIdx.x % kWarp == 0;
  }
};

// The slot of this warp in CTA `cta` (a CTA's warps are rows' parts in turn).
__device__ __forceinline__ Q8Slot q8_slot(int64_t cta, int split, int64_t rows) {
  const int warp = static_cast<int>(threadIdx.x / kWarp);
  const int64_t row = cta * (kQ8Warps / split) + warp / split;
  const bool live = row < rows;  // warp-uniform
  return Q8Slot{live ? row : 0, warp % split, split, live};
}

// Calls step(b, part) for the blocks b of a row this lane takes: lane l takes
// part l % kQ8Parts of blocks l / kQ8Parts, + 32 / kQ8Parts, ... of each warp
// step, and the slot's warp takes the row's warp steps part, part + split, ...
// (split 1: every step, in order).
template <class T, class Step>
__device__ __forceinline__ void for_q8_blocks(const Q8Slot& slot, int64_t row_blocks, Step step) {
  static_assert(kWarp % T::kQ8Parts == 0, "a warp step must cover whole blocks");
  constexpr int kBlocksPerStep = kWarp / T::kQ8Parts;
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const int part = lane % T::kQ8Parts;
  const int64_t end = slot.live ? row_blocks : 0;
  const int64_t stride = static_cast<int64_t>(slot.split) * kBlocksPerStep;
#pragma unroll 2
  for (int64_t b = static_cast<int64_t>(slot.part) * kBlocksPerStep + lane / T::kQ8Parts; b < end;
       b += stride)
    step(b, part);
}

// Turns each lane's kN partial sums into the row's: a shuffle tree over the
// warp, then (split > 1) the split warps' sums added in warp order through
// shared memory, so the bits depend on the shape only. Split 1 is the warp
// tree alone, with no barrier; split > 1 is a barrier every thread of the
// CTA must reach (split is CTA-uniform). The sums end up in the writer's acc.
template <int kN>
__device__ __forceinline__ void q8_row_sums(const Q8Slot& slot, float (&acc)[kN]) {
#pragma unroll
  for (int j = 0; j < kN; ++j) acc[j] = warp_sum(acc[j]);  // every lane: full-mask shuffles
  if (slot.split == 1) return;
  __shared__ float partial[kQ8Warps][kN];
  const int warp = static_cast<int>(threadIdx.x / kWarp);
  if (threadIdx.x % kWarp == 0) {
#pragma unroll
    for (int j = 0; j < kN; ++j) partial[warp][j] = acc[j];
  }
  __syncthreads();
  if (!slot.writer()) return;
#pragma unroll
  for (int j = 0; j < kN; ++j) {
    for (int w = 1; w < slot.split; ++w) acc[j] += partial[warp + w][j];
  }
}

// The dots of kN rows (row_blocks blocks each) with the same x: each row's
// dot has the same bits whatever kN. Every thread of the CTA calls it.
template <class T, int kN>
__device__ __forceinline__ void row_dots_q8(const Q8Slot& slot,
                                            const typename T::Block* const (&rows)[kN],
                                            int64_t row_blocks, const Q8x32* __restrict__ xq,
                                            float (&dots)[kN]) {
  constexpr int kRunsPerBlock = T::kElems / 32;
#pragma unroll
  for (int j = 0; j < kN; ++j) dots[j] = 0.0f;
  for_q8_blocks<T>(slot, row_blocks, [&](int64_t b, int part) {
#pragma unroll
    for (int j = 0; j < kN; ++j) dots[j] += T::dot_q8(rows[j][b], part, xq + b * kRunsPerBlock);
  });
  q8_row_sums(slot, dots);
}

template <class T>
__device__ __forceinline__ void matvec_q8_row(const typename T::Block* __restrict__ w, int64_t rows,
                                              int64_t row_blocks, const Q8x32* __restrict__ xq,
                                              float* __restrict__ y, int split,
                                              int64_t cta = blockIdx.x) {
  const Q8Slot slot = q8_slot(cta, split, rows);
  const typename T::Block* const row_w[1] = {w + slot.row * row_blocks};
  float dot[1];
  row_dots_q8<T, 1>(slot, row_w, row_blocks, xq, dot);
  if (slot.writer()) y[slot.row] = dot[0];
}

template <class T>
__global__ void __launch_bounds__(kQ8Threads)
    matvec_q8_kernel(const typename T::Block* __restrict__ w, int64_t rows, int64_t row_blocks,
                     const Q8x32* __restrict__ xq, float* __restrict__ y, int split) {
  matvec_q8_row<T>(w, rows, row_blocks, xq, y, split);
}

// matvec_ids_kernel with 8-bit activations: x row j at xq + j * xq_stride.
template <class T>
__global__ void __launch_bounds__(kQ8Threads)
    matvec_ids_q8_kernel(const typename T::Block* __restrict__ w, int64_t rows, int64_t row_blocks,
                         int64_t expert_blocks, const int32_t* __restrict__ ids, int64_t ids_per_x,
                         const Q8x32* __restrict__ xq, int64_t xq_stride, float* __restrict__ y,
                         int64_t y_stride, int split) {
  const int64_t i = blockIdx.y;
  matvec_q8_row<T>(w + static_cast<int64_t>(ids[i]) * expert_blocks, rows, row_blocks,
                   xq + (i / ids_per_x) * xq_stride, y + i * y_stride, split);
}

// One weight with several x rows (matvec_xs_q8): matvec_q8's slots, and CTA
// row blockIdx.y takes x rows [kXsPerPass * blockIdx.y, + kXsPerPass), so
// each lane reads a weight block once for all of them. Each x's sum keeps
// row_dots_q8's lanes, order and reduction: y row t has matvec_q8's bits for
// x t.
constexpr int kXsPerPass = 8;

template <class T>
__global__ void __launch_bounds__(kQ8Threads)
    matvec_xs_q8_kernel(const typename T::Block* __restrict__ w, int64_t rows, int64_t row_blocks,
                        const Q8x32* __restrict__ xq, int64_t xq_stride, int64_t n_x,
                        float* __restrict__ y, int64_t y_stride, int split) {
  constexpr int kRunsPerBlock = T::kElems / 32;
  const Q8Slot slot = q8_slot(blockIdx.x, split, rows);
  const int64_t x0 = static_cast<int64_t>(blockIdx.y) * kXsPerPass;
  const int n = n_x - x0 < kXsPerPass ? static_cast<int>(n_x - x0) : kXsPerPass;
  const typename T::Block* const row_w = w + slot.row * row_blocks;
  float acc[kXsPerPass] = {};
  for_q8_blocks<T>(slot, row_blocks, [&](int64_t b, int part) {
    const typename T::Block& block = row_w[b];
#pragma unroll
    for (int j = 0; j < kXsPerPass; ++j) {
      if (j < n) acc[j] += T::dot_q8(block, part, xq + (x0 + j) * xq_stride + b * kRunsPerBlock);
    }
  });
  q8_row_sums(slot, acc);
  if (!slot.writer()) return;
#pragma unroll
  for (int j = 0; j < kXsPerPass; ++j) {
    if (j < n) y[(x0 + j) * y_stride + slot.row] = acc[j];
  }
}

// Several weights with one x (matvec_multi_q8): the CTAs of part j are
// [first_cta[j], first_cta[j + 1]); each runs matvec_q8_row on its part at
// the part's own split (matvec_q8's bits; a CTA lies in one part, so its
// split is CTA-uniform).
constexpr int kMaxMatvecParts = 4;
template <class T>
struct MultiArgs {
  const typename T::Block* w[kMaxMatvecParts];
  int64_t rows[kMaxMatvecParts];
  float* y[kMaxMatvecParts];
  int split[kMaxMatvecParts];
  int64_t first_cta[kMaxMatvecParts + 1];
  int n_parts;
};

template <class T>
__global__ void __launch_bounds__(kQ8Threads)
    matvec_multi_q8_kernel(MultiArgs<T> a, int64_t row_blocks, const Q8x32* __restrict__ xq) {
  const int64_t cta = blockIdx.x;
  int j = 0;
  while (j + 1 < a.n_parts && cta >= a.first_cta[j + 1]) ++j;
  matvec_q8_row<T>(a.w[j], a.rows[j], row_blocks, xq, a.y[j], a.split[j], cta - a.first_cta[j]);
}

// A gated feed-forward's first half (matvec_glu_q8): matvec_q8's slots over
// output rows r of pick blockIdx.y, the gate row's and the up row's dots over
// the same x runs (each dot's lanes, order and reduction as matvec_q8_row's:
// its bits), then h = act(g + gate bias, u + up bias). ids null: expert 0.
struct GluArgs {
  uint32_t activation;
  float alpha, limit;
  const float* gate_bias;  // rows per expert, or null
  const float* up_bias;
};

template <class T>
__global__ void __launch_bounds__(kQ8Threads)
    matvec_glu_q8_kernel(const typename T::Block* __restrict__ gate,
                         const typename T::Block* __restrict__ up, int64_t rows, int64_t row_blocks,
                         int64_t expert_blocks, const int32_t* __restrict__ ids, int64_t ids_per_x,
                         const Q8x32* __restrict__ xq, int64_t xq_stride, GluArgs glu,
                         float* __restrict__ y, int64_t y_stride, int split) {
  const Q8Slot slot = q8_slot(blockIdx.x, split, rows);
  const int64_t i = blockIdx.y;
  const int64_t expert = ids == nullptr ? 0 : ids[i];
  const int64_t first = expert * expert_blocks + slot.row * row_blocks;
  const typename T::Block* const row_w[2] = {gate + first, up + first};
  float dot[2];
  row_dots_q8<T, 2>(slot, row_w, row_blocks, xq + (i / ids_per_x) * xq_stride, dot);
  if (!slot.writer()) return;
  float g = dot[0], u = dot[1];
  const int64_t bias = expert * rows + slot.row;
  if (glu.gate_bias != nullptr) g = g + glu.gate_bias[bias];
  if (glu.up_bias != nullptr) u = u + glu.up_bias[bias];
  y[i * y_stride + slot.row] = ::orcd::GatedActivation(glu.activation, g, u, glu.alpha, glu.limit);
}

template <class T>
__global__ void __launch_bounds__(kMatmulThreads)
    matmul_kernel(const typename T::Block* __restrict__ w, int64_t rows, int64_t cols,
                  const float* __restrict__ x, int64_t n_tokens, float* __restrict__ y,
                  int64_t y_stride) {
  constexpr int kRuns = kChunkValues / T::kRunLen;
  // +1 column: row r's element k sits in bank (r + k) % 32, so the per-lane
  // row reads below are conflict-free.
  __shared__ float ws[kTileRows][kTileK + 1];
  __shared__ float xs[kTileTokens][kTileK + 1];

  const int tid = threadIdx.x;
  const int lane = tid % kWarp;         // output row within the tile
  const int token_group = tid / kWarp;  // output tokens token_group * 4 + 0..3
  const int64_t row0 = static_cast<int64_t>(blockIdx.x) * kTileRows;
  const int64_t tok0 = static_cast<int64_t>(blockIdx.y) * kTileTokens;
  const int64_t row_blocks = cols / T::kElems;
  const int64_t n_ktiles = (cols + kTileK - 1) / kTileK;

  float acc[kTokensPerThread] = {};
  for (int64_t kt = 0; kt < n_ktiles; ++kt) {
    // Decode the weight tile: chunks [16 kt, 16 kt + 16) of each row cover
    // columns [128 kt, 128 kt + 128). Past the matrix edge, zeros.
    for (int q = tid; q < kTileRows * kChunksPerTileRow; q += kMatmulThreads) {
      const int r = q / kChunksPerTileRow;
      const int64_t g = kt * kChunksPerTileRow + q % kChunksPerTileRow;
      const int64_t b = g / T::kChunks;
      const int c = static_cast<int>(g % T::kChunks);
      float v[kChunkValues];
      if (row0 + r < rows && b < row_blocks) {
        T::decode_chunk(w[(row0 + r) * row_blocks + b], c, v);
      } else {
#pragma unroll
        for (int k = 0; k < kChunkValues; ++k) v[k] = 0.0f;
      }
      const int base = static_cast<int>(b * T::kElems - kt * kTileK);
#pragma unroll
      for (int rr = 0; rr < kRuns; ++rr) {
#pragma unroll
        for (int k = 0; k < T::kRunLen; ++k) {
          ws[r][base + T::run_start(c, rr) + k] = v[rr * T::kRunLen + k];
        }
      }
    }
    // The activation tile, coalesced along the columns.
    for (int q = tid; q < kTileTokens * kTileK; q += kMatmulThreads) {
      const int t = q / kTileK;
      const int k = q % kTileK;
      const int64_t tok = tok0 + t;
      const int64_t col = kt * kTileK + k;
      xs[t][k] = (tok < n_tokens && col < cols) ? x[tok * cols + col] : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < kTileK; ++k) {
      const float wv = ws[lane][k];
#pragma unroll
      for (int j = 0; j < kTokensPerThread; ++j) {
        acc[j] = fmaf(wv, xs[token_group * kTokensPerThread + j][k], acc[j]);  // broadcast read
      }
    }
    __syncthreads();
  }
  const int64_t row = row0 + lane;
  if (row >= rows) return;
#pragma unroll
  for (int j = 0; j < kTokensPerThread; ++j) {
    const int64_t tok = tok0 + token_group * kTokensPerThread + j;
    if (tok < n_tokens) y[tok * y_stride + row] = acc[j];
  }
}

}  // namespace orcd::quant::cuda

#endif  // ORCD_QUANT_COMMON_CUDA_DEVICE_KERNELS_CUH_
