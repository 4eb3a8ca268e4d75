// matmul_q8_decode (quant ABI 1.9: several generated tokens of one step) of
// the AVX2 variant for types whose 32-element blocks pair (q8_pairs.h: Q5_0,
// Q8_0): each weight block is unpacked once (T::q8_weights: signed int8, then
// |w|) for a tile of tokens, which then pay only the sign / maddubs / madd /
// convert / FMA of their own product. Without VNNI a token's 8-bit decode of
// these types is compute-bound, and unpacking (Q5_0's fifth-bit spread) was
// half of each block's work, redone per token by matvec_q8.
//
// Bits: every (row, token) takes avx2::matvec_q8's operations: dot_s8s8's
// int32 lanes, scaled by float(d_w) * d_x and added into the even or the
// odd accumulator by block parity, then hsum_pair
// (tests/quant/quant_q8_matmul_test.cc pins it).
// Included by q8_matmul.h inside namespace orcd::quant::avx2.

// A paired type whose AVX2 block dot is q8::dot_s8s8 of T::q8_weights(b) and
// the activation block, scaled by float(b.d) * x.d.
template <class T>
concept HasPairedQ8Weights = q8::HasPairedBlocks<T> && HasQ8Dot<T> &&
    requires(const typename T::Block& b) {
  requires sizeof(T::q8_weights(b)) == 32;
};

// Tokens per tile: one parity's accumulators and the unpacked block (w, |w|
// and its scale) stay in the 16 ymm registers.
inline constexpr int kQ8PairTileTokens = 8;

// Blocks first, first + 2, ... of a row into acc[t] for every token: the
// even or the odd chain of matvec_q8's dot_q8_avx2, with each block's
// unpacking and |w| shared by the tokens. One parity at a time keeps the
// kTokens accumulators and the block in registers (both parities spilled).
template <class T, int kTokens>
ORCD_QUANT_AVX2 __attribute__((always_inline)) inline void q8_pair_chain(
    const typename T::Block* row, int64_t first, int64_t row_blocks,
    const q8::Q8x32* const (&xt)[kTokens], __m256 (&out)[kTokens]) {
  // A local array: on `out` itself GCC stored every update back to memory.
  __m256 acc[kTokens];
#pragma GCC unroll 8
  for (int t = 0; t < kTokens; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t b = first; b < row_blocks; b += 2) {
    if (first == 0) {  // the weights come from DRAM: ask ahead once per pair
      prefetch_ahead(row + b);
      prefetch_ahead(row + b + 1);
    }
    const __m256i w = T::q8_weights(row[b]);
    const __m256i aw = _mm256_sign_epi8(w, w);
    const __m256 dw = _mm256_set1_ps(q8::half_to_float_avx2(row[b].d));
#pragma GCC unroll 8
    for (int t = 0; t < kTokens; ++t) {
      const q8::Q8x32& x = xt[t][b];
      const __m256i isum = q8::dot_u8s8(aw, _mm256_sign_epi8(q8::load_q(x), w));
      acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum),
                               _mm256_mul_ps(dw, _mm256_broadcast_ss(&x.d)), acc[t]);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < kTokens; ++t) out[t] = acc[t];
}

// One row against kTokens tokens (nt live; the others repeat the last, are
// computed and never stored): y[t * y_stride] for token t.
template <class T, int kTokens>
ORCD_QUANT_AVX2 void q8_pair_row_tile(const typename T::Block* row, int64_t row_blocks,
                                      const q8::Q8x32* xq, int nt, float* y, int64_t y_stride) {
  const q8::Q8x32* xt[kTokens];
  for (int t = 0; t < kTokens; ++t) xt[t] = xq + (t < nt ? t : nt - 1) * row_blocks;
  __m256 even[kTokens];
  __m256 odd[kTokens];
  q8_pair_chain<T, kTokens>(row, 0, row_blocks, xt, even);
  q8_pair_chain<T, kTokens>(row, 1, row_blocks, xt, odd);
  for (int t = 0; t < nt; ++t) y[t * y_stride] = q8::hsum_pair(even[t], odd[t]);
}

// y[t * y_stride + r] = matvec_q8(W, x_t)[r] for every token t. Activations
// are rounded a chunk of tokens at a time (kQ8ChunkBytes); each row meets
// the chunk's tokens a tile at a time while it stays in L1.
template <HasPairedQ8Weights T>
ORCD_QUANT_AVX2 void matmul_q8_pair_tiles(const void* w, int64_t rows, int64_t cols, const float* x,
                                          int64_t n_tokens, float* y, int64_t y_stride) {
  static_assert(std::is_same_v<typename T::XBlock, q8::Q8x32>);
  if (cols > q8::kMaxCols) {
    matmul<T>(w, rows, cols, x, n_tokens, y, y_stride);
    return;
  }
  constexpr int kTokens = kQ8PairTileTokens;
  constexpr int64_t kChunkBlocks = kQ8ChunkBytes / static_cast<int64_t>(sizeof(q8::Q8x32));
  static_assert(kChunkBlocks >= q8::kMaxCols / T::kElems, "one token must fit");
  alignas(64) q8::Q8x32 xq[kChunkBlocks];
  const int64_t row_blocks = cols / T::kElems;
  const int64_t chunk_tokens = kChunkBlocks / row_blocks;
  const auto* blocks = static_cast<const typename T::Block*>(w);
  for (int64_t t0 = 0; t0 < n_tokens; t0 += chunk_tokens) {
    const int64_t nc = n_tokens - t0 < chunk_tokens ? n_tokens - t0 : chunk_tokens;
    q8_round_tokens<T>(x, cols, t0, nc, xq);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t t = 0; t < nc; t += kTokens) {
        const int nt = static_cast<int>(nc - t < kTokens ? nc - t : kTokens);
        q8_pair_row_tile<T, kTokens>(blocks + r * row_blocks, row_blocks, xq + t * row_blocks, nt,
                                     y + (t0 + t) * y_stride + r, y_stride);
      }
    }
  }
}
