// matvec_q8 and matmul_q8 of the AVX-512 VNNI variant for types whose
// 32-element blocks pair (q8_pairs.h: Q5_0, Q8_0). Included by cpu_kernels.h
// after avx2's kernels, inside no namespace.
#ifndef ORCD_QUANT_COMMON_Q8_PAIR_KERNELS_H_
#define ORCD_QUANT_COMMON_Q8_PAIR_KERNELS_H_

#if ORCD_QUANT_HAVE_X86

#include <array>
#include <type_traits>
#include <utility>

#include "common/q8_pairs.h"

namespace orcd::quant::avx512_vnni {

// One row's odd last block, in lanes 0-7 (q8::finish_pairs).
template <class T>
ORCD_QUANT_AVX512_VNNI __attribute__((always_inline)) inline float finish_row(
    __m512 acc, const typename T::Block* row, const typename T::XBlock* x, int64_t row_blocks) {
  return q8::finish_pairs(acc, [&](__m256& even) {
    if (row_blocks % 2 != 0) T::dot_q8_vnni(row[row_blocks - 1], x[row_blocks - 1], even);
  });
}

// q8::quantize_x of one block in two zmm: the same maximum, d, 1 / d,
// rounding (MXCSR's nearest) and saturation, so the same bytes, d and sum;
// a third of the instructions (AVX2's took 4-5 % of a prompt's time).
ORCD_QUANT_AVX512_VNNI inline void quantize_x_512(const float* x, q8::Q8x32& out) {
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
  out.d = d;
  out.sum = d * static_cast<float>(q8::hsum_i32(q8::fold_halves(_mm512_add_epi32(qa, qb))));
}

template <class T>
ORCD_QUANT_AVX512_VNNI void quantize_x_pairs(const float* x, int64_t row_blocks,
                                             typename T::XBlock* xq, q8::XPair* xp) {
  static_assert(std::is_same_v<typename T::XBlock, q8::Q8x32>);
  for (int64_t i = 0; i < row_blocks; ++i) quantize_x_512(x + T::kElems * i, xq[i]);
  for (int64_t p = 0; p < row_blocks / 2; ++p) xp[p] = q8::make_x_pair<T>(xq[2 * p], xq[2 * p + 1]);
}

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
  const int64_t pairs = row_blocks / 2;
  quantize_x_pairs<T>(x, row_blocks, xq, xp);
  const auto* blocks = static_cast<const typename T::Block*>(w);
  for (int64_t r = 0; r < rows; ++r) {
    const typename T::Block* row = blocks + r * row_blocks;
    __m512 acc = _mm512_setzero_ps();
    for (int64_t p = 0; p < pairs; ++p) {
      avx2::prefetch_ahead(row + 2 * p);
      avx2::prefetch_ahead(row + 2 * p + 1);
      q8::WeightPair wp;
      q8::make_weight_pair<T>(row + 2 * p, wp);
      q8::dot_pair(wp, xp[p], acc);
    }
    y[r] = finish_row<T>(acc, row, xq, row_blocks);
  }
}

// Rows x tokens of one register tile of matmul_q8_pairs: a weight pair is
// unpacked once for the tile's tokens, an x pair read once for its rows (the
// tile's rows' pairs are unpacked first, then each token's x pair meets them
// all). 4 x 8 takes a batch of 8 decoding sequences in one token tile; on the
// Qwen2.5-0.5B shape (2-core Zen 5 VM, 512-token prompts) it measured 446-451
// tok/s against 409-412 with 3 x 8, 432-437 with 4 x 5 and 4 x 6, 424 with
// 4 x 4, 403-406 with 4 x 12 and 4 x 16, 365 with 8 x 4; 8 sequences' decode
// equal or better. (Row by row, each row meeting every token's x pair, 3 x 8
// had measured best at 400-415.)
inline constexpr int kPairTileRows = 4;
inline constexpr int kPairTileTokens = 8;

// One tile of exactly kRows x kTokens (constant loop bounds keep acc in
// registers; edge tiles are smaller instances, see kPairTiles).
template <class T, int kRows, int kTokens>
ORCD_QUANT_AVX512_VNNI void q8_pair_tile(const typename T::Block* w, int64_t row_blocks,
                                         const q8::XPair* xp, const typename T::XBlock* xq,
                                         float* y, int64_t y_stride) {
  const int64_t pairs = row_blocks / 2;
  // Every loop over acc unrolled, so that it stays in registers (GCC kept it
  // on the stack).
  __m512 acc[kRows][kTokens];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) acc[r][t] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < pairs; ++p) {
    q8::WeightPair wp[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const typename T::Block* pair = w + r * row_blocks + 2 * p;
      avx2::prefetch_ahead(pair);
      avx2::prefetch_ahead(pair + 1);
      q8::make_weight_pair<T>(pair, wp[r]);
    }
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) {
      const q8::XPair x = xp[t * pairs + p];
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) q8::dot_pair(wp[r], x, acc[r][t]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t)
      y[t * y_stride + r] =
          finish_row<T>(acc[r][t], w + r * row_blocks, xq + t * row_blocks, row_blocks);
  }
}

using PairTileFn = void (*)(const void*, int64_t, const q8::XPair*, const void*, float*, int64_t);

template <class T, int kRows, int kTokens>
ORCD_QUANT_AVX512_VNNI void q8_pair_tile_erased(const void* w, int64_t row_blocks,
                                                const q8::XPair* xp, const void* xq, float* y,
                                                int64_t y_stride) {
  q8_pair_tile<T, kRows, kTokens>(static_cast<const typename T::Block*>(w), row_blocks, xp,
                                  static_cast<const typename T::XBlock*>(xq), y, y_stride);
}

// kPairTiles<T>[nr - 1][nt - 1]: the tile of nr rows and nt tokens.
template <class T, int kRows, size_t... kTokens>
constexpr std::array<PairTileFn, sizeof...(kTokens)> pair_tiles_of_rows(
    std::index_sequence<kTokens...>) {
  return {&q8_pair_tile_erased<T, kRows, static_cast<int>(kTokens) + 1>...};
}
template <class T, size_t... kRows>
constexpr std::array<std::array<PairTileFn, kPairTileTokens>, sizeof...(kRows)> pair_tiles(
    std::index_sequence<kRows...>) {
  return {pair_tiles_of_rows<T, static_cast<int>(kRows) + 1>(
      std::make_index_sequence<kPairTileTokens>())...};
}
template <class T>
inline constexpr auto kPairTiles = pair_tiles<T>(std::make_index_sequence<kPairTileRows>());

// Rounded x kept on the stack per chunk of tokens (both forms: pairs for the
// tiles, blocks for an odd last block). At least one token always fits.
inline constexpr int64_t kPairChunkBlocks = 2048;

// y[t * y_stride + r] = matvec_q8_pairs(W, x_t)[r] for every token t.
template <q8::HasPairedBlocks T>
ORCD_QUANT_AVX512_VNNI void matmul_q8_pairs(const void* w, int64_t rows, int64_t cols,
                                            const float* x, int64_t n_tokens, float* y,
                                            int64_t y_stride) {
  using XBlock = typename T::XBlock;
  static_assert(kPairChunkBlocks >= q8::kMaxCols / T::kElems, "one token must fit");
  if (cols > q8::kMaxCols) {
    avx2::matmul<T>(w, rows, cols, x, n_tokens, y, y_stride);
    return;
  }
  constexpr int kRows = kPairTileRows;
  constexpr int kTokens = kPairTileTokens;
  alignas(64) XBlock xq[kPairChunkBlocks];
  q8::XPair xp[kPairChunkBlocks / 2];
  const int64_t row_blocks = cols / T::kElems;
  const int64_t pairs = row_blocks / 2;
  // Whole token tiles per chunk where more than one fits.
  int64_t chunk_tokens = kPairChunkBlocks / row_blocks;
  if (chunk_tokens > kTokens) chunk_tokens -= chunk_tokens % kTokens;
  const auto* blocks = static_cast<const typename T::Block*>(w);
  for (int64_t t0 = 0; t0 < n_tokens; t0 += chunk_tokens) {
    const int64_t nc = n_tokens - t0 < chunk_tokens ? n_tokens - t0 : chunk_tokens;
    for (int64_t t = 0; t < nc; ++t)
      quantize_x_pairs<T>(x + (t0 + t) * cols, row_blocks, xq + t * row_blocks, xp + t * pairs);
    for (int64_t r0 = 0; r0 < rows; r0 += kRows) {
      const int nr = static_cast<int>(rows - r0 < kRows ? rows - r0 : kRows);
      const typename T::Block* wr = blocks + r0 * row_blocks;
      for (int64_t i = 0; i < nc; i += kTokens) {
        const int nt = static_cast<int>(nc - i < kTokens ? nc - i : kTokens);
        kPairTiles<T>[nr - 1][nt - 1](wr, row_blocks, xp + i * pairs, xq + i * row_blocks,
                                      y + (t0 + i) * y_stride + r0, y_stride);
      }
    }
  }
}

}  // namespace orcd::quant::avx512_vnni

#endif  // ORCD_QUANT_HAVE_X86

#endif  // ORCD_QUANT_COMMON_Q8_PAIR_KERNELS_H_
