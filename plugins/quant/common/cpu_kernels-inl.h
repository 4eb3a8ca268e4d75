// CPU kernels for one instruction set. NO include guard on purpose:
// cpu_kernels.h includes this file twice, once inside namespace
// orcd::quant::portable with ORCD_QUANT_ISA_AVX2 == 0 and once inside
// orcd::quant::avx2 under `#pragma GCC target("avx2,fma")` with it == 1, so
// one source yields both variants and every function of the AVX2 copy
// (templates included) carries the target attribute.
//
// T is a quant type (see block_codec.h). Optionally T::decode_avx2(block, out)
// decodes a block with AVX2; it must give the same bits as decode_chunk.

// Tokens whose dot products share one decoded weight block. Up to this many
// tokens every weight block is decoded exactly once; beyond it, once per tile
// of this many tokens, which keeps the accumulators on the stack and the x
// tile (tokens x cols floats) in L2.
inline constexpr int kTokenTile = 32;

// Each token's partial sums stay in f32 for at most this many elements, then
// fold into a double: f32 rounding never builds up over long rows.
inline constexpr int kFlushElems = 256;

#if ORCD_QUANT_ISA_AVX2

// Four independent FMA chains hide the FMA latency.
struct DotAccumulator {
  __m256 a0, a1, a2, a3;
  double total;

  void start() {
    a0 = a1 = a2 = a3 = _mm256_setzero_ps();
    total = 0.0;
  }
  // n is a multiple of 32; w is 32-byte aligned (the decode buffer).
  void add(const float* w, const float* x, int n) {
    for (int i = 0; i < n; i += 32) {
      a0 = _mm256_fmadd_ps(_mm256_load_ps(w + i), _mm256_loadu_ps(x + i), a0);
      a1 = _mm256_fmadd_ps(_mm256_load_ps(w + i + 8), _mm256_loadu_ps(x + i + 8), a1);
      a2 = _mm256_fmadd_ps(_mm256_load_ps(w + i + 16), _mm256_loadu_ps(x + i + 16), a2);
      a3 = _mm256_fmadd_ps(_mm256_load_ps(w + i + 24), _mm256_loadu_ps(x + i + 24), a3);
    }
  }
  void flush() {
    const __m256 s = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
    const __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(s));
    const __m256d hi = _mm256_cvtps_pd(_mm256_extractf128_ps(s, 1));
    const __m256d q = _mm256_add_pd(lo, hi);
    const __m128d p = _mm_add_pd(_mm256_castpd256_pd128(q), _mm256_extractf128_pd(q, 1));
    total += _mm_cvtsd_f64(_mm_add_sd(p, _mm_unpackhi_pd(p, p)));
    a0 = a1 = a2 = a3 = _mm256_setzero_ps();
  }
};

#else

// 32 lanes in the same pattern as the AVX2 copy (the compiler may use SSE2).
struct DotAccumulator {
  float lanes[32];
  double total;

  void start() {
    for (float& l : lanes) l = 0.0f;
    total = 0.0;
  }
  void add(const float* w, const float* x, int n) {
    for (int i = 0; i < n; i += 32) {
      for (int j = 0; j < 32; ++j) lanes[j] += w[i + j] * x[i + j];
    }
  }
  void flush() {
    double s = 0.0;
    for (float& l : lanes) {
      s += l;
      l = 0.0f;
    }
    total += s;
  }
};

#endif

template <class T>
inline void decode_block(const typename T::Block& b, float* out) {
#if ORCD_QUANT_ISA_AVX2
  if constexpr (requires { T::decode_avx2(b, out); }) {
    T::decode_avx2(b, out);
  } else {
    decode_block_by_chunks<T>(b, out);
  }
#else
  decode_block_by_chunks<T>(b, out);
#endif
}

template <class T>
void dequantize_row(const void* blocks, float* out, int64_t n) {
  const auto* b = static_cast<const typename T::Block*>(blocks);
  for (int64_t i = 0; i < n / T::kElems; ++i) decode_block<T>(b[i], out + i * T::kElems);
}

template <class T>
void get_rows(const void* w, int64_t cols, const int32_t* ids, int64_t n_ids, float* out) {
  const int64_t row_blocks = cols / T::kElems;
  const auto* blocks = static_cast<const typename T::Block*>(w);
  for (int64_t i = 0; i < n_ids; ++i) {
    const typename T::Block* row = blocks + static_cast<int64_t>(ids[i]) * row_blocks;
    for (int64_t b = 0; b < row_blocks; ++b)
      decode_block<T>(row[b], out + i * cols + b * T::kElems);
  }
}

// y[t * y_stride] = row . x_t for nt tokens (x_t = x + t * cols). kMaxTokens == 1
// lets the compiler keep the single accumulator in registers (decode path).
template <class T, int kMaxTokens>
void dot_row(const typename T::Block* row, int64_t row_blocks, const float* x, int64_t cols,
             int nt_dynamic, float* y, int64_t y_stride) {
  constexpr int kBlocksPerFlush = T::kElems >= kFlushElems ? 1 : kFlushElems / T::kElems;
  const int nt = kMaxTokens == 1 ? 1 : nt_dynamic;
  alignas(32) float wbuf[T::kElems];
  DotAccumulator acc[kMaxTokens];
  for (int t = 0; t < nt; ++t) acc[t].start();
  for (int64_t b = 0; b < row_blocks; ++b) {
    const float* xb = x + b * T::kElems;
#if ORCD_QUANT_ISA_AVX2
    // One token and a fused decoder: the same sums without the buffer.
    if constexpr (kMaxTokens == 1 && requires {
                    T::dot_avx2(row[b], xb, acc[0].a0, acc[0].a1, acc[0].a2, acc[0].a3);
                  }) {
      T::dot_avx2(row[b], xb, acc[0].a0, acc[0].a1, acc[0].a2, acc[0].a3);
    } else
#endif
    {
      decode_block<T>(row[b], wbuf);  // once for all nt tokens
      for (int t = 0; t < nt; ++t) acc[t].add(wbuf, xb + t * cols, T::kElems);
    }
    if ((b + 1) % kBlocksPerFlush == 0) {
      for (int t = 0; t < nt; ++t) acc[t].flush();
    }
  }
  for (int t = 0; t < nt; ++t) {
    acc[t].flush();
    y[t * y_stride] = static_cast<float>(acc[t].total);
  }
}

template <class T>
void matmul(const void* w, int64_t rows, int64_t cols, const float* x, int64_t n_tokens, float* y,
            int64_t y_stride) {
  const int64_t row_blocks = cols / T::kElems;
  const auto* blocks = static_cast<const typename T::Block*>(w);
  for (int64_t r = 0; r < rows; ++r) {
    const typename T::Block* row = blocks + r * row_blocks;
    for (int64_t t0 = 0; t0 < n_tokens; t0 += kTokenTile) {
      const int nt = static_cast<int>(n_tokens - t0 < kTokenTile ? n_tokens - t0 : kTokenTile);
      const float* xt = x + t0 * cols;
      float* yt = y + t0 * y_stride + r;
      if (nt == 1) {
        dot_row<T, 1>(row, row_blocks, xt, cols, 1, yt, y_stride);
      } else {
        dot_row<T, kTokenTile>(row, row_blocks, xt, cols, nt, yt, y_stride);
      }
    }
  }
}

#if ORCD_QUANT_ISA_AVX2

// T::XBlock is the activation block matching one weight block (q8::Q8x32 or
// q8::Q8x256); T::dot_q8_avx2 adds one weight block's dot into acc.
template <class T>
concept HasQ8Dot = requires(const typename T::Block& b, const typename T::XBlock& x, __m256& acc) {
  T::dot_q8_avx2(b, x, acc);
};

// Decode streams every weight byte from DRAM once: the hardware prefetcher
// alone left 1-thread matvec_q8 at ~70 % of a plain streaming read on a
// 2-core AVX2 EPYC VM; asking for the lines this far ahead took Q4_K / Q6_K /
// Q8_0 / Q5_0 from ~10-11.5 to ~12-14 GB/s there (1 GiB of weights; 2 KiB
// and 8 KiB were no better). Prefetches do not fault, so reading past the
// last row is harmless; they change no result.
inline constexpr int kPrefetchBytes = 4096;

template <class Block>
ORCD_QUANT_AVX2 __attribute__((always_inline)) inline void prefetch_ahead(const Block* b) {
  const char* p = reinterpret_cast<const char*>(b) + kPrefetchBytes;
#pragma GCC unroll 4
  for (size_t line = 0; line < (sizeof(Block) + 63) / 64; ++line)
    _mm_prefetch(p + 64 * line, _MM_HINT_T0);
}

// Batch-1 y = W x with x rounded to 8 bits (see q8_activations.h): x is
// quantized once per call, every weight block is dotted with integers.
template <HasQ8Dot T>
void matvec_q8(const void* w, int64_t rows, int64_t cols, const float* x, float* y) {
  using XBlock = typename T::XBlock;
  static_assert(sizeof(XBlock::q) == T::kElems, "one activation block per weight block");
  if (cols > q8::kMaxCols) {
    matmul<T>(w, rows, cols, x, 1, y, rows);
    return;
  }
  XBlock xq[q8::kMaxCols / T::kElems];
  const int64_t row_blocks = cols / T::kElems;
  for (int64_t i = 0; i < row_blocks; ++i) q8::quantize_x(x + T::kElems * i, xq[i]);
  const auto* blocks = static_cast<const typename T::Block*>(w);
  for (int64_t r = 0; r < rows; ++r) {
    const typename T::Block* row = blocks + r * row_blocks;
    if constexpr (q8::HasPairedBlocks<T>) {
      // The VNNI kernels' order (q8_pairs.h): even and odd blocks apart.
      __m256 even = _mm256_setzero_ps();
      __m256 odd = _mm256_setzero_ps();
      int64_t b = 0;
      for (; b + 1 < row_blocks; b += 2) {
        prefetch_ahead(row + b);
        prefetch_ahead(row + b + 1);
        T::dot_q8_avx2(row[b], xq[b], even);
        T::dot_q8_avx2(row[b + 1], xq[b + 1], odd);
      }
      if (b < row_blocks) T::dot_q8_avx2(row[b], xq[b], even);
      y[r] = q8::hsum_pair(even, odd);
    } else {
      __m256 acc = _mm256_setzero_ps();
      for (int64_t b = 0; b < row_blocks; ++b) {
        prefetch_ahead(row + b);
        T::dot_q8_avx2(row[b], xq[b], acc);
      }
      y[r] = q8::hsum(acc);
    }
  }
}

using MatvecQ8Fn = void (*)(const void*, int64_t, int64_t, const float*, float*);

template <class T>
constexpr MatvecQ8Fn matvec_q8_or_null() {
  if constexpr (HasQ8Dot<T>) {
    return &matvec_q8<T>;
  } else {
    return nullptr;
  }
}

#endif
