// matmul_q8: many tokens (prefill) with matvec_q8's arithmetic. NO include
// guard on purpose: cpu_kernels.h includes it once per SIMD variant, inside
// that variant's namespace, with ORCD_Q8_MATMUL_TARGET set to the variant's
// target attribute (so the block dots inline into the tile loops).
//
// A Dot policy says how one weight block meets one activation block:
//   using Prep = ...;                                  // the unpacked block
//   static void prepare(const Block&, Prep&);          // once per (row, block)
//   static void dot(const Prep&, const XBlock&, __m256& acc, float& offset);
// prepare + dot must be exactly what the variant's matvec_q8 does per block,
// so every (row, token) gets matvec_q8's bits: the same activation rounding,
// the same int32 lanes, the same float operations in the same block order.
// Tiling only changes which (row, token) pairs share the unpacking and the
// loads, never the order of one pair's sums.

// Rows x tokens of one register tile: each prepared weight block is reused for
// kQ8TileTokens tokens, each activation block for kQ8TileRows rows.
inline constexpr int kQ8TileRows = 4;
inline constexpr int kQ8TileTokens = 4;
// The same for Dots made of runs, whose int32 lanes stay in registers (4 x 3
// measured best of 1x8 .. 6x2 on a 2-core AMD EPYC VM with AVX2: Q4_K 43, Q6_K
// 45 GMAC/s against 38 / 38 with 2 x 4).
inline constexpr int kQ8RunsTileRows = 4;
inline constexpr int kQ8RunsTileTokens = 3;

// Bytes of rounded activations kept on the stack: as many tokens as fit are
// rounded once, then every weight row of the call streams past them. At
// least one token always fits (q8::kMaxCols elements, ~20 KiB).
inline constexpr int64_t kQ8ChunkBytes = 128 * 1024;

// The accumulators of one tile; nr / nt below the tile size at the edges
// (kFull: they are the tile size, and the loops unroll with constant bounds).
template <class T, class Dot, int kRows, int kTokens, bool kFull>
ORCD_Q8_MATMUL_TARGET void q8_tile(const typename T::Block* w, int64_t row_blocks, int nr_edge,
                                   const typename T::XBlock* xq, int nt_edge, float* y,
                                   int64_t y_stride) {
  const int nr = kFull ? kRows : nr_edge;
  const int nt = kFull ? kTokens : nt_edge;
  __m256 acc[kRows][kTokens];
  float offset[kRows][kTokens];
  for (int r = 0; r < kRows; ++r) {
    for (int t = 0; t < kTokens; ++t) {
      acc[r][t] = _mm256_setzero_ps();
      offset[r][t] = 0.0f;
    }
  }
  for (int64_t b = 0; b < row_blocks; ++b) {
    for (int r = 0; r < kRows; ++r) {
      if (r >= nr) break;
      typename Dot::Prep p;
      Dot::prepare(w[r * row_blocks + b], p);
      for (int t = 0; t < kTokens; ++t) {
        if (t >= nt) break;
        Dot::dot(p, xq[t * row_blocks + b], acc[r][t], offset[r][t]);
      }
    }
  }
  for (int r = 0; r < nr; ++r) {
    for (int t = 0; t < nt; ++t) y[t * y_stride + r] = q8::hsum(acc[r][t]) + offset[r][t];
  }
}

// q8_tile for Dots made of runs (q8_runs.h), on weights unpacked beforehand
// (prep: kRows rows of row_blocks unpacked blocks, reused by every token tile
// of the chunk). Inside a block the int32 lanes of every (row, token) pair
// stay in registers while each run's weights and activations are loaded once
// for the whole tile. The pairs' integer lanes equal dot_by_runs' (exact
// integers), and init / finish are its own, so the bits stay matvec_q8's.
// Edge tiles repeat their last token (in bounds, never stored) so the loops
// keep constant bounds; the caller repeats the last row's prep.
template <class T, class Dot, int kRows, int kTokens>
ORCD_Q8_MATMUL_TARGET void q8_tile_runs(const typename Dot::Prep* prep, int64_t row_blocks, int nr,
                                        const typename T::XBlock* xq, int nt, float* y,
                                        int64_t y_stride) {
  const typename T::XBlock* xt[kTokens];
  for (int t = 0; t < kTokens; ++t) xt[t] = xq + (t < nt ? t : nt - 1) * row_blocks;
  __m256 acc[kRows][kTokens];
  float offset[kRows][kTokens];
  for (int r = 0; r < kRows; ++r) {
    for (int t = 0; t < kTokens; ++t) {
      acc[r][t] = _mm256_setzero_ps();
      offset[r][t] = 0.0f;
    }
  }
  for (int64_t b = 0; b < row_blocks; ++b) {
    const typename Dot::Prep* p[kRows];
    __m256i s[kRows][kTokens];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      p[r] = prep + r * row_blocks + b;
#pragma GCC unroll 8
      for (int t = 0; t < kTokens; ++t) s[r][t] = Dot::init(*p[r], xt[t][b]);
    }
#pragma GCC unroll 8
    for (int i = 0; i < Dot::kRuns; ++i) {
#pragma GCC unroll 8
      for (int t = 0; t < kTokens; ++t) {
        const __m256i xv = Dot::x_run(xt[t][b], i);
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) s[r][t] = Dot::step(*p[r], i, xv, s[r][t]);
      }
    }
    const typename T::XBlock* xb[kTokens];
    for (int t = 0; t < kTokens; ++t) xb[t] = xt[t] + b;
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r)
      Dot::template finish_tokens<kTokens>(*p[r], xb, s[r], acc[r], offset[r]);
  }
  for (int r = 0; r < nr; ++r) {
    for (int t = 0; t < nt; ++t) y[t * y_stride + r] = q8::hsum(acc[r][t]) + offset[r][t];
  }
}

// Rows [0, rows) of w against nc tokens (rounded blocks xq), for Dots made of
// runs: each row pair is unpacked once into prep, then every token tile of
// the chunk runs over it.
template <class T, class Dot>
ORCD_Q8_MATMUL_TARGET void q8_rows_by_tokens_runs(const typename T::Block* w, int64_t rows,
                                                  int64_t row_blocks, const typename T::XBlock* xq,
                                                  int64_t nc, float* y, int64_t y_stride) {
  constexpr int kRows = kQ8RunsTileRows;
  constexpr int kTokens = kQ8RunsTileTokens;
  alignas(64) typename Dot::Prep prep[kRows * (q8::kMaxCols / T::kElems)];
  for (int64_t r0 = 0; r0 < rows; r0 += kRows) {
    const int nr = static_cast<int>(rows - r0 < kRows ? rows - r0 : kRows);
    for (int r = 0; r < kRows; ++r) {
      const typename T::Block* row = w + (r0 + (r < nr ? r : nr - 1)) * row_blocks;
      for (int64_t b = 0; b < row_blocks; ++b) Dot::prepare(row[b], prep[r * row_blocks + b]);
    }
    for (int64_t t0 = 0; t0 < nc; t0 += kTokens) {
      const int nt = static_cast<int>(nc - t0 < kTokens ? nc - t0 : kTokens);
      q8_tile_runs<T, Dot, kRows, kTokens>(prep, row_blocks, nr, xq + t0 * row_blocks, nt,
                                           y + t0 * y_stride + r0, y_stride);
    }
  }
}

// Rows [0, rows) of w against nc tokens whose rounded blocks are xq.
template <class T, class Dot>
ORCD_Q8_MATMUL_TARGET void q8_rows_by_tokens(const typename T::Block* w, int64_t rows,
                                             int64_t row_blocks, const typename T::XBlock* xq,
                                             int64_t nc, float* y, int64_t y_stride) {
  constexpr int kRows = kQ8TileRows;
  constexpr int kTokens = kQ8TileTokens;
  for (int64_t r0 = 0; r0 < rows; r0 += kRows) {
    const int nr = static_cast<int>(rows - r0 < kRows ? rows - r0 : kRows);
    const typename T::Block* wr = w + r0 * row_blocks;
    for (int64_t t0 = 0; t0 < nc; t0 += kTokens) {
      const int nt = static_cast<int>(nc - t0 < kTokens ? nc - t0 : kTokens);
      float* yt = y + t0 * y_stride + r0;
      const typename T::XBlock* xt = xq + t0 * row_blocks;
      if (nr == kRows && nt == kTokens) {
        q8_tile<T, Dot, kRows, kTokens, true>(wr, row_blocks, nr, xt, nt, yt, y_stride);
      } else {
        q8_tile<T, Dot, kRows, kTokens, false>(wr, row_blocks, nr, xt, nt, yt, y_stride);
      }
    }
  }
}

// y[t * y_stride + r] = matvec_q8(W, x_t)[r] for every token t. Rows longer
// than q8::kMaxCols take the f32 matmul, as matvec_q8 does.
template <class T, class Dot, auto kF32Matmul>
ORCD_Q8_MATMUL_TARGET void matmul_q8_tiled(const void* w, int64_t rows, int64_t cols,
                                           const float* x, int64_t n_tokens, float* y,
                                           int64_t y_stride) {
  using XBlock = typename T::XBlock;
  if (cols > q8::kMaxCols) {
    kF32Matmul(w, rows, cols, x, n_tokens, y, y_stride);
    return;
  }
  constexpr int64_t kChunkBlocks = kQ8ChunkBytes / static_cast<int64_t>(sizeof(XBlock));
  static_assert(kChunkBlocks >= q8::kMaxCols / T::kElems, "one token must fit");
  alignas(64) XBlock xq[kChunkBlocks];
  const int64_t row_blocks = cols / T::kElems;
  const int64_t chunk_tokens = kChunkBlocks / row_blocks;
  const auto* blocks = static_cast<const typename T::Block*>(w);
  for (int64_t t0 = 0; t0 < n_tokens; t0 += chunk_tokens) {
    const int64_t nc = n_tokens - t0 < chunk_tokens ? n_tokens - t0 : chunk_tokens;
    for (int64_t t = 0; t < nc; ++t) {
      const float* xt = x + (t0 + t) * cols;
      for (int64_t i = 0; i < row_blocks; ++i)
        q8::quantize_x(xt + T::kElems * i, xq[t * row_blocks + i]);
    }
    if constexpr (requires { Dot::kRuns; }) {
      q8_rows_by_tokens_runs<T, Dot>(blocks, rows, row_blocks, xq, nc, y + t0 * y_stride, y_stride);
    } else {
      q8_rows_by_tokens<T, Dot>(blocks, rows, row_blocks, xq, nc, y + t0 * y_stride, y_stride);
    }
  }
}
