// matvec_q8 and matmul_q8 of the AVX-512 VNNI variant for types whose
// 32-element blocks pair (q8_pairs.h: Q5_0, Q8_0). Included by cpu_kernels.h
// after avx2's kernels, inside no namespace.
#ifndef ORCD_QUANT_COMMON_Q8_PAIR_KERNELS_H_
#define ORCD_QUANT_COMMON_Q8_PAIR_KERNELS_H_

#if ORCD_QUANT_HAVE_X86

#include <array>
#include <cstring>
#include <type_traits>
#include <utility>

#include "common/q8_pairs.h"
#include "common/q8_row_lanes.h"

namespace orcd::quant::avx512_vnni {

// q8::quantize_x of one block in two zmm: the same maximum, d, 1 / d,
// rounding (MXCSR's nearest) and saturation, so the same bytes, d and sum;
// a third of the instructions (AVX2's took 4-5 % of a prompt's time).
// Returns the sum of the rounded values.
ORCD_QUANT_AVX512_VNNI inline int32_t quantize_x_512(const float* x, q8::Q8x32& out) {
  const __m512 a = _mm512_loadu_ps(x);
  const __m512 b = _mm512_loadu_ps(x + 16);
  // The halves by the zero-masking extract (q8_activations.h: GCC bug 105593).
  const __m512d m =
      _mm512_castps_pd(_mm512_maskz_max_ps(0xFFFF, _mm512_abs_ps(a), _mm512_abs_ps(b)));
  const float d =
      q8::hmax(_mm256_max_ps(_mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, m, 0)),
                             _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, m, 1)))) /
      127.0f;
  const __m512 id = _mm512_set1_ps(d != 0.0f ? 1.0f / d : 0.0f);
  const __m512i qa = _mm512_maskz_cvtps_epi32(0xFFFF, _mm512_mul_ps(a, id));
  const __m512i qb = _mm512_maskz_cvtps_epi32(0xFFFF, _mm512_mul_ps(b, id));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out.q), _mm512_maskz_cvtsepi32_epi8(0xFFFF, qa));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out.q + 16), _mm512_maskz_cvtsepi32_epi8(0xFFFF, qb));
  const int32_t sum = q8::hsum_i32(q8::fold_halves(_mm512_add_epi32(qa, qb)));
  out.d = d;
  out.sum = d * static_cast<float>(sum);
  return sum;
}

// x's blocks and their pairs for matvec_q8_pairs; an odd last block pairs
// with itself.
template <class T>
ORCD_QUANT_AVX512_VNNI void quantize_x_pairs(const float* x, int64_t row_blocks,
                                             typename T::XBlock* xq, q8::XPair* xp) {
  static_assert(std::is_same_v<typename T::XBlock, q8::Q8x32>);
  for (int64_t i = 0; i < row_blocks; ++i) quantize_x_512(x + T::kElems * i, xq[i]);
  for (int64_t b = 0; b < row_blocks; b += 2)
    xp[b / 2] = q8::make_x_pair<T>(xq[b], xq[b + 1 < row_blocks ? b + 1 : b]);
}

// Live rows of a 16-row tile as a lane mask.
inline __mmask16 live_lanes(int live) {
  return static_cast<__mmask16>(live >= q8::kLaneRows ? 0xFFFF : (1u << live) - 1);
}

// Rows r0 .. r0 + 15 of a weight; rows past the last repeat it (their lanes
// are computed, never stored).
template <class T>
struct LaneRows {
  const typename T::Block* row[q8::kLaneRows];
  __mmask16 mask;  // the rows that exist
  // The next 16 rows' bytes (past the last row too: a prefetch never
  // faults, and a caller's next rows are often the weight's next ones), and
  // how many of them to prefetch per pair of blocks read here.
  uintptr_t next;
  int64_t step;
  int64_t row_blocks;

  ORCD_QUANT_AVX512_VNNI LaneRows(const typename T::Block* blocks, int64_t rows, int64_t row_blocks,
                                  int64_t r0)
      : row_blocks(row_blocks) {
    const int live = static_cast<int>(rows - r0 < q8::kLaneRows ? rows - r0 : q8::kLaneRows);
    mask = live_lanes(live);
    for (int r = 0; r < q8::kLaneRows; ++r)
      row[r] = blocks + (r0 + (r < live ? r : live - 1)) * row_blocks;
    // An address, not a pointer into the weight: it may lie past its end.
    next = reinterpret_cast<uintptr_t>(blocks) +
           static_cast<uintptr_t>((r0 + q8::kLaneRows) * row_blocks) * sizeof(typename T::Block);
    const int64_t pairs = (row_blocks + 1) / 2;
    step = (tile_bytes(row_blocks) + pairs - 1) / pairs;
  }

  static int64_t tile_bytes(int64_t row_blocks) {
    return q8::kLaneRows * row_blocks * static_cast<int64_t>(sizeof(typename T::Block));
  }

  // Blocks b, b + 1 of the 16 rows (an odd last block pairs with itself):
  // u[r] row r's pair as vpdpbusd's unsigned side, and each block's 16
  // scales. Each row's scale is copied next to where its block is read (a
  // gather of the 16 cost a sixth of matvec_q8's time on Zen 5).
  struct Pair {
    __m512i u[q8::kLaneRows];
    __m512 d_even, d_odd;
  };
  ORCD_QUANT_AVX512_VNNI __attribute__((always_inline)) void read_pair(int64_t b, Pair& p) const {
    prefetch_next(b);
    const int64_t b_odd = b + 1 < row_blocks ? b + 1 : b;
    alignas(32) uint16_t d_even[q8::kLaneRows], d_odd[q8::kLaneRows];
#pragma GCC unroll 16
    for (int r = 0; r < q8::kLaneRows; ++r) {
      p.u[r] = q8::unsigned_pair_at<T>(row[r], b, row_blocks);
      d_even[r] = row[r][b].d;
      d_odd[r] = row[r][b_odd].d;
    }
    p.d_even = q8::scales_of(d_even);
    p.d_odd = q8::scales_of(d_odd);
  }

 private:
  // Read sixteen rows side by side, a tile is a pattern the hardware
  // prefetchers do not follow: while blocks b, b + 1 are read here, the next
  // tile's share of bytes is fetched in order, one tile ahead.
  ORCD_QUANT_AVX512_VNNI __attribute__((always_inline)) void prefetch_next(int64_t b) const {
    const int64_t begin = (b / 2) * step;
    for (int64_t o = begin & ~int64_t{63}; o < begin + step; o += 64)
      _mm_prefetch(reinterpret_cast<const char*>(next + static_cast<uintptr_t>(o)), _MM_HINT_T0);
  }
};

// The first tile of a call, whose reads no earlier tile prefetched.
template <class T>
ORCD_QUANT_AVX512_VNNI inline void prefetch_first_tile(const typename T::Block* blocks,
                                                       int64_t row_blocks) {
  const auto first = reinterpret_cast<uintptr_t>(blocks);
  for (int64_t o = 0; o < LaneRows<T>::tile_bytes(row_blocks); o += 64)
    _mm_prefetch(reinterpret_cast<const char*>(first + static_cast<uintptr_t>(o)), _MM_HINT_T0);
}

// y = W x for one token (q8_row_lanes.h): 16 rows at a time, each row's pair
// of blocks against x's pair in one vpdpbusd, the rows' lanes reduced to
// block totals.
template <q8::HasPairedBlocks T>
ORCD_QUANT_AVX512_VNNI void matvec_q8_pairs(const void* w, int64_t rows, int64_t cols,
                                            const float* x, float* y) {
  using XBlock = typename T::XBlock;
  if (cols > q8::kMaxCols) {
    avx2::matmul<T>(w, rows, cols, x, 1, y, rows);
    return;
  }
  XBlock xq[q8::kMaxCols / T::kElems];
  q8::XPair xp[q8::kMaxCols / T::kElems / 2];
  const int64_t row_blocks = cols / T::kElems;
  const auto* blocks = static_cast<const typename T::Block*>(w);
  prefetch_first_tile<T>(blocks, row_blocks);
  quantize_x_pairs<T>(x, row_blocks, xq, xp);
  for (int64_t r0 = 0; r0 < rows; r0 += q8::kLaneRows) {
    const LaneRows<T> lr(blocks, rows, row_blocks, r0);
    __m512 acc = _mm512_setzero_ps();
    for (int64_t b = 0; b < row_blocks; b += 2) {
      typename LaneRows<T>::Pair pair;
      lr.read_pair(b, pair);
      const q8::XPair& xb = xp[b / 2];
#pragma GCC unroll 16
      for (int r = 0; r < q8::kLaneRows; ++r)
        pair.u[r] = _mm512_dpbusd_epi32(xb.corr, pair.u[r], xb.q);
      __m512i even, odd;
      q8::row_totals(pair.u, even, odd);
      acc = q8::scale_block(even, pair.d_even, xq[b].d, acc);
      if (b + 1 < row_blocks) acc = q8::scale_block(odd, pair.d_odd, xq[b + 1].d, acc);
    }
    _mm512_mask_storeu_ps(y + r0, lr.mask, acc);
  }
}

// Tokens per register tile (8: a batch of 8 decoding sequences in one
// tile), and blocks transposed at a time (18 KiB: they stay in L1 while
// every token of a chunk meets them).
inline constexpr int kLaneTokens = 8;
inline constexpr int64_t kLaneChunkBlocks = 32;

// Blocks [b0, b0 + n) of a 16-row tile, rows in lanes: w[b][g] lane r = row
// r's (unsigned) bytes 4g .. 4g + 3 of block b0 + b; d[b] lane r its scale.
struct LaneChunk {
  __m512i w[kLaneChunkBlocks][8];
  __m512 d[kLaneChunkBlocks];
};

template <class T>
ORCD_QUANT_AVX512_VNNI void transpose_chunk(const LaneRows<T>& lr, int64_t b0, int64_t b1,
                                            LaneChunk& out) {
  for (int64_t b = b0; b < b1; b += 2) {
    typename LaneRows<T>::Pair pair;
    lr.read_pair(b, pair);
    q8::transpose16(pair.u);
#pragma GCC unroll 8
    for (int g = 0; g < 8; ++g) out.w[b - b0][g] = pair.u[g];
    out.d[b - b0] = pair.d_even;
    if (b + 1 == b1) break;
#pragma GCC unroll 8
    for (int g = 0; g < 8; ++g) out.w[b + 1 - b0][g] = pair.u[8 + g];
    out.d[b + 1 - b0] = pair.d_odd;
  }
}

// kTokens tokens against a transposed chunk of n blocks: x[t * x_stride + b]
// is token t's block b of the chunk; y[t * y_stride + r] row r's running sum
// (read back unless `first`).
template <int kTokens>
ORCD_QUANT_AVX512_VNNI void lane_tile(const LaneChunk& c, int64_t n, const q8::XLanes* x,
                                      int64_t x_stride, float* y, int64_t y_stride, __mmask16 mask,
                                      bool first) {
  __m512 acc[kTokens];
#pragma GCC unroll 8
  for (int t = 0; t < kTokens; ++t)
    acc[t] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(mask, y + t * y_stride);
  for (int64_t b = 0; b < n; ++b) {
    const __m512i* w = c.w[b];
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) {
      const q8::XLanes& xb = x[t * x_stride + b];
      // Two chains, so that a token waits on four vpdpbusd, not eight.
      __m512i s0 = _mm512_set1_epi32(xb.corr), s1 = _mm512_setzero_si512();
#pragma GCC unroll 4
      for (int g = 0; g < 8; g += 2) {
        s0 = _mm512_dpbusd_epi32(s0, w[g], _mm512_set1_epi32(xb.q[g]));
        s1 = _mm512_dpbusd_epi32(s1, w[g + 1], _mm512_set1_epi32(xb.q[g + 1]));
      }
      acc[t] = q8::scale_block(_mm512_add_epi32(s0, s1), c.d[b], xb.d, acc[t]);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < kTokens; ++t) _mm512_mask_storeu_ps(y + t * y_stride, mask, acc[t]);
}

using LaneTileFn = void (*)(const LaneChunk&, int64_t, const q8::XLanes*, int64_t, float*, int64_t,
                            __mmask16, bool);

template <size_t... kTokens>
constexpr std::array<LaneTileFn, sizeof...(kTokens)> lane_tiles(std::index_sequence<kTokens...>) {
  return {&lane_tile<static_cast<int>(kTokens) + 1>...};
}
// kLaneTiles[nt - 1]: the tile of nt tokens.
inline constexpr auto kLaneTiles = lane_tiles(std::make_index_sequence<kLaneTokens>());

// Rounded x kept on the stack per chunk of tokens. At least one token always
// fits.
inline constexpr int64_t kLaneXBlocks = 2048;

// y[t * y_stride + r] = matvec_q8_pairs(W, x_t)[r] for every token t, bit
// for bit (q8_row_lanes.h).
template <q8::HasPairedBlocks T>
ORCD_QUANT_AVX512_VNNI void matmul_q8_pairs(const void* w, int64_t rows, int64_t cols,
                                            const float* x, int64_t n_tokens, float* y,
                                            int64_t y_stride) {
  static_assert(kLaneXBlocks >= q8::kMaxCols / T::kElems, "one token must fit");
  if (cols > q8::kMaxCols) {
    avx2::matmul<T>(w, rows, cols, x, n_tokens, y, y_stride);
    return;
  }
  q8::XLanes xl[kLaneXBlocks];
  LaneChunk chunk;
  const int64_t row_blocks = cols / T::kElems;
  // Whole token tiles per chunk where more than one fits.
  int64_t chunk_tokens = kLaneXBlocks / row_blocks;
  if (chunk_tokens > kLaneTokens) chunk_tokens -= chunk_tokens % kLaneTokens;
  const auto* blocks = static_cast<const typename T::Block*>(w);
  prefetch_first_tile<T>(blocks, row_blocks);
  for (int64_t t0 = 0; t0 < n_tokens; t0 += chunk_tokens) {
    const int64_t nc = n_tokens - t0 < chunk_tokens ? n_tokens - t0 : chunk_tokens;
    for (int64_t t = 0; t < nc; ++t) {
      for (int64_t b = 0; b < row_blocks; ++b) {
        q8::Q8x32 xb;
        const int32_t sum = quantize_x_512(x + (t0 + t) * cols + T::kElems * b, xb);
        q8::XLanes& out = xl[t * row_blocks + b];
        std::memcpy(out.q, xb.q, sizeof(out.q));
        out.d = xb.d;
        out.corr = -T::kWeightOffset * sum;
      }
    }
    for (int64_t r0 = 0; r0 < rows; r0 += q8::kLaneRows) {
      const LaneRows<T> lr(blocks, rows, row_blocks, r0);
      for (int64_t b0 = 0; b0 < row_blocks; b0 += kLaneChunkBlocks) {
        const int64_t b1 = row_blocks - b0 < kLaneChunkBlocks ? row_blocks : b0 + kLaneChunkBlocks;
        transpose_chunk<T>(lr, b0, b1, chunk);
        for (int64_t i = 0; i < nc; i += kLaneTokens) {
          const int nt = static_cast<int>(nc - i < kLaneTokens ? nc - i : kLaneTokens);
          kLaneTiles[nt - 1](chunk, b1 - b0, xl + i * row_blocks + b0, row_blocks,
                             y + (t0 + i) * y_stride + r0, y_stride, lr.mask, b0 == 0);
        }
      }
    }
  }
}

}  // namespace orcd::quant::avx512_vnni

#endif  // ORCD_QUANT_HAVE_X86

#endif  // ORCD_QUANT_COMMON_Q8_PAIR_KERNELS_H_
