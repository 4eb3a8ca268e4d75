// matmul_q8: many tokens (prefill) with matvec_q8's arithmetic. NO include
// guard on purpose: cpu_kernels.h includes it once per SIMD variant, inside
// that variant's namespace, with ORCD_Q8_MATMUL_TARGET set to the variant's
// target attribute (so the block dots inline into the tile loops).
//
// A Dot policy says how one weight block meets one activation block:
//   using Prep = ...;                                  // the unpacked block
//   static void prepare(const Block&, Prep&);          // once per (row, block)
//   static void dot(const Prep&, const XBlock&, __m256& acc);
// prepare + dot must be exactly what the variant's matvec_q8 does per block,
// so every (row, token) gets matvec_q8's bits: the same activation rounding,
// the same int32 lanes, the same float operations in the same block order.
// Tiling only changes which (row, token) pairs share the unpacking and the
// loads, never the order of one pair's sums.

// Rows x tokens of one register tile: each prepared weight block is reused for
// kQ8TileTokens tokens, each activation block for kQ8TileRows rows. On the
// Phi-3-mini shape (Q4_K / Q6_K, AVX-512 VNNI, 2-core Zen 5 VM) 2 x 8 measured
// 62 prompt / 52 eight-sequence decode tok/s against 57 / 43 with 4 x 4,
// 60 / 47 with 3 x 8 and 53 / 56 with 1 x 8.
inline constexpr int kQ8TileRows = 2;
inline constexpr int kQ8TileTokens = 8;
// The same for Dots made of runs, whose int32 lanes stay in registers: 3 x 3
// (nine sums, a run's weights and a temporary in the 16 ymm registers) measured
// best on a 2-core AMD EPYC (Zen 3) VM with AVX2: Q4_K 60 GMAC/s, 1 thread,
// against 56 with 4 x 2 and 43-45 with 4 x 3 and 3 x 4, which spill.
inline constexpr int kQ8RunsTileRows = 3;
inline constexpr int kQ8RunsTileTokens = 3;

// Bytes of rounded activations kept on the stack: as many tokens as fit are
// rounded once, then every weight row of the call streams past them (and is
// unpacked again for the next chunk: 128 KiB held an 8192-column matmul to
// 14 tokens a chunk). At least one token always fits (q8::kMaxCols elements,
// ~20 KiB).
inline constexpr int64_t kQ8ChunkBytes = 256 * 1024;

// The accumulators of one tile; nr / nt below the tile size at the edges
// (kFull: they are the tile size, and the loops unroll with constant bounds).
template <class T, class Dot, int kRows, int kTokens, bool kFull>
ORCD_Q8_MATMUL_TARGET void q8_tile(const typename T::Block* w, int64_t row_blocks, int nr_edge,
                                   const typename T::XBlock* xq, int nt_edge, float* y,
                                   int64_t y_stride) {
  const int nr = kFull ? kRows : nr_edge;
  const int nt = kFull ? kTokens : nt_edge;
  // The loops over acc unrolled, so that it stays in registers (GCC kept it
  // on the stack), and the blocks asked for ahead, as matvec_q8 does: each
  // tile's first touch of a block waited on memory.
  __m256 acc[kRows][kTokens];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) acc[r][t] = _mm256_setzero_ps();
  }
  for (int64_t b = 0; b < row_blocks; ++b) {
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      if (r >= nr) break;
      avx2::prefetch_ahead(w + r * row_blocks + b);
      typename Dot::Prep p;
      Dot::prepare(w[r * row_blocks + b], p);
#pragma GCC unroll 8
      for (int t = 0; t < kTokens; ++t) {
        if (t >= nt) break;
        Dot::dot(p, xq[t * row_blocks + b], acc[r][t]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    if (r >= nr) break;
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) {
      if (t >= nt) break;
      y[t * y_stride + r] = q8::hsum(acc[r][t]);
    }
  }
}

// q8_tile for Dots made of runs (q8_runs.h), over one span of blocks
// [b0, b0 + span) of weights unpacked beforehand (prep: kRows rows of span
// unpacked blocks, reused by every token tile of the chunk). Inside a block
// the int32 lanes of every (row, token) pair stay in registers while each
// run's weights and activations are loaded once for the whole tile; acc
// (kRows x kTokens, carried from span to span) takes each block's floats in
// block order. The pairs' integer lanes equal dot_by_runs' (exact integers)
// and init / finish are its own, so the bits stay matvec_q8's. Edge tiles
// repeat their last token (in bounds, never stored) so the loops keep
// constant bounds; the caller repeats the last row's prep.
template <class T, class Dot, int kRows, int kTokens>
ORCD_Q8_MATMUL_TARGET void q8_tile_runs(const typename Dot::Prep* prep, int64_t span, int64_t b0,
                                        int64_t row_blocks, const typename T::XBlock* xq, int nt,
                                        __m256 (&acc)[kRows][kTokens]) {
  const typename T::XBlock* xt[kTokens];
  for (int t = 0; t < kTokens; ++t) xt[t] = xq + (t < nt ? t : nt - 1) * row_blocks + b0;
  for (int64_t b = 0; b < span; ++b) {
    const typename Dot::Prep* p[kRows];
    __m256i s[kRows][kTokens];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      p[r] = prep + r * span + b;
#pragma GCC unroll 8
      for (int t = 0; t < kTokens; ++t) s[r][t] = Dot::init(*p[r], xt[t][b]);
    }
    // Row by row, so a run's weights are loaded once for the tile's tokens
    // and x is a memory operand. The empty asm keeps each pair's sum one
    // chain of adds in a register: without it GCC reassociates the chains
    // into trees whose intermediate products spill to the stack (Q4_K 40
    // against 60 GMAC/s, 1 thread, on the AVX2 VM of bench/RESULTS.md).
#pragma GCC unroll 8
    for (int i = 0; i < Dot::kRuns; ++i) {
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
        for (int t = 0; t < kTokens; ++t) {
          s[r][t] = Dot::step(*p[r], i, Dot::x_run(xt[t][b], i), s[r][t]);
          asm("" : "+x"(s[r][t]));
        }
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int t = 0; t < kTokens; ++t) Dot::finish(*p[r], xt[t][b], s[r][t], acc[r][t]);
    }
  }
}

// Blocks per span of q8_rows_by_tokens_runs: kRows x 12 unpacked K-quant
// blocks (~20 KiB) stay in L1 while the chunk's token tiles pass over them.
// Unpacking a whole 8192-column row tile (~55 KiB) left the tiles reading it
// from L2 (Q4_K 3072x8192: ~40 against ~55 GMAC/s for 3072 columns).
inline constexpr int64_t kQ8RunsSpanBlocks = 12;
// Token tiles per chunk at most (their accumulators live on the stack).
inline constexpr int64_t kQ8RunsMaxChunkTiles = 64;

// Asks for the cache lines of n blocks (fewer at a row's end: the lines
// past it are the next row's) of each of `rows` rows from `first` on.
// Prefetches never fault and change no result.
template <class Block>
ORCD_Q8_MATMUL_TARGET inline void q8_prefetch_rows(const Block* first, int64_t row_blocks,
                                                   int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r) {
    const char* p = reinterpret_cast<const char*>(first + r * row_blocks);
    for (size_t off = 0; off < n * sizeof(Block); off += 64) _mm_prefetch(p + off, _MM_HINT_T0);
  }
}

// Rows [0, rows) of w against nc tokens (rounded blocks xq), for Dots made of
// runs: each row tile is unpacked a span of blocks at a time, and every token
// tile of the chunk runs over the span.
template <class T, class Dot>
ORCD_Q8_MATMUL_TARGET void q8_rows_by_tokens_runs(const typename T::Block* w, int64_t rows,
                                                  int64_t row_blocks, const typename T::XBlock* xq,
                                                  int64_t nc, float* y, int64_t y_stride) {
  constexpr int kRows = kQ8RunsTileRows;
  constexpr int kTokens = kQ8RunsTileTokens;
  alignas(64) typename Dot::Prep prep[kRows * kQ8RunsSpanBlocks];
  __m256 acc[kQ8RunsMaxChunkTiles][kRows][kTokens];  // matmul_q8_tiled caps nc to fit
  const int64_t tiles = (nc + kTokens - 1) / kTokens;
  for (int64_t r0 = 0; r0 < rows; r0 += kRows) {
    const int nr = static_cast<int>(rows - r0 < kRows ? rows - r0 : kRows);
    for (int64_t i = 0; i < tiles; ++i) {
      for (int r = 0; r < kRows; ++r) {
        for (int t = 0; t < kTokens; ++t) acc[i][r][t] = _mm256_setzero_ps();
      }
    }
    for (int64_t b0 = 0; b0 < row_blocks; b0 += kQ8RunsSpanBlocks) {
      const int64_t span =
          row_blocks - b0 < kQ8RunsSpanBlocks ? row_blocks - b0 : kQ8RunsSpanBlocks;
      for (int r = 0; r < kRows; ++r) {
        const typename T::Block* row = w + (r0 + (r < nr ? r : nr - 1)) * row_blocks + b0;
        for (int64_t b = 0; b < span; ++b) Dot::prepare(row[b], prep[r * span + b]);
      }
      // The next span's weights (or the next row tile's first span) come
      // from DRAM while this span's tiles run: unpacking waited on them.
      if (b0 + span < row_blocks) {
        q8_prefetch_rows(w + r0 * row_blocks + b0 + span, row_blocks, nr, kQ8RunsSpanBlocks);
      } else if (r0 + kRows < rows) {
        const int64_t next_rows = rows - r0 - kRows < kRows ? rows - r0 - kRows : kRows;
        q8_prefetch_rows(w + (r0 + kRows) * row_blocks, row_blocks, next_rows, kQ8RunsSpanBlocks);
      }
      for (int64_t i = 0; i < tiles; ++i) {
        const int nt = static_cast<int>(nc - i * kTokens < kTokens ? nc - i * kTokens : kTokens);
        q8_tile_runs<T, Dot, kRows, kTokens>(prep, span, b0, row_blocks,
                                             xq + i * kTokens * row_blocks, nt, acc[i]);
      }
    }
    for (int64_t i = 0; i < tiles; ++i) {
      for (int r = 0; r < nr; ++r) {
        for (int t = 0; t < kTokens && i * kTokens + t < nc; ++t)
          y[(i * kTokens + t) * y_stride + r0 + r] = q8::hsum(acc[i][r][t]);
      }
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

// Tokens [t0, t0 + nc) of x (rows of cols values) rounded into xq, token
// after token, row_blocks blocks each: matvec_q8's activation rounding.
template <class T>
ORCD_Q8_MATMUL_TARGET inline void q8_round_tokens(const float* x, int64_t cols, int64_t t0,
                                                  int64_t nc, typename T::XBlock* xq) {
  const int64_t row_blocks = cols / T::kElems;
  for (int64_t t = 0; t < nc; ++t) {
    const float* xt = x + (t0 + t) * cols;
    for (int64_t i = 0; i < row_blocks; ++i)
      q8::quantize_x(xt + T::kElems * i, xq[t * row_blocks + i]);
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
  // Whole token tiles per chunk where more than one fits (a partial tile
  // repeats a token's work).
  int64_t chunk_tokens = kChunkBlocks / row_blocks;
  if constexpr (requires { Dot::kRuns; }) {
    constexpr int64_t kMaxTokens = kQ8RunsMaxChunkTiles * kQ8RunsTileTokens;
    if (chunk_tokens > kMaxTokens) chunk_tokens = kMaxTokens;
    if (chunk_tokens > kQ8RunsTileTokens) chunk_tokens -= chunk_tokens % kQ8RunsTileTokens;
  }
  const auto* blocks = static_cast<const typename T::Block*>(w);
  for (int64_t t0 = 0; t0 < n_tokens; t0 += chunk_tokens) {
    const int64_t nc = n_tokens - t0 < chunk_tokens ? n_tokens - t0 : chunk_tokens;
    q8_round_tokens<T>(x, cols, t0, nc, xq);
    if constexpr (requires { Dot::kRuns; }) {
      q8_rows_by_tokens_runs<T, Dot>(blocks, rows, row_blocks, xq, nc, y + t0 * y_stride, y_stride);
    } else {
      q8_rows_by_tokens<T, Dot>(blocks, rows, row_blocks, xq, nc, y + t0 * y_stride, y_stride);
    }
  }
}
