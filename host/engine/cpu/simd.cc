#include "host/engine/cpu/simd.h"

#include <algorithm>
#include <cmath>

#include "orcd/cpp/half.h"
#include "orcd/cpp/q8_0_block.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define ORCD_ENGINE_X86 1
#else
#define ORCD_ENGINE_X86 0
#endif

namespace orcd::engine::cpu {
namespace {

// ---- portable -------------------------------------------------------------

// Eight partial sums, like the vector version, so both round alike.
float DotF32Portable(const float* a, const float* b, int64_t n) {
  float acc[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) acc[j] += a[i + j] * b[i + j];
  }
  float s = 0.0f;
  for (float v : acc) s += v;
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

float DotF16Portable(const uint16_t* a, const float* b, int64_t n) {
  float s = 0.0f;
  for (int64_t i = 0; i < n; ++i) s += fp16_to_f32(a[i]) * b[i];
  return s;
}

void F16ToF32Portable(const uint16_t* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = fp16_to_f32(in[i]);
}

void Bf16ToF32Portable(const uint16_t* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = bf16_to_f32(in[i]);
}

void F32ToF16Portable(const float* in, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = f32_to_fp16(in[i]);
}

void AxpyF32Portable(float a, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

void AxpyF16Portable(float a, const uint16_t* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * fp16_to_f32(x[i]);
}

template <typename A, float (*kDot)(const A*, const float*, int64_t)>
void DotRowsPortable(const A* rows, int64_t stride, int64_t n_rows, const float* b, int64_t n,
                     float* out) {
  for (int64_t j = 0; j < n_rows; ++j) out[j] = kDot(rows + j * stride, b, n);
}

template <typename A, void (*kAxpy)(float, const A*, float*, int64_t)>
void AxpyRowsPortable(const float* w, const A* rows, int64_t stride, int64_t n_rows, float* y,
                      int64_t n) {
  for (int64_t j = 0; j < n_rows; ++j) kAxpy(w[j], rows + j * stride, y, n);
}

// q8_0 blocks: the f16 scale, then 32 int8.
float Q8Scale(const uint8_t* block) {
  uint16_t h;
  __builtin_memcpy(&h, block, 2);
  return fp16_to_f32(h);
}
const int8_t* Q8Values(const uint8_t* block) { return reinterpret_cast<const int8_t*>(block + 2); }

float DotQ8Portable(const uint8_t* row, const float* b, int64_t n) {
  float s = 0.0f;
  for (int64_t i = 0; i < n; i += 32, row += 34) {
    const int8_t* q = Q8Values(row);
    float block = 0.0f;
    for (int j = 0; j < 32; ++j) block += static_cast<float>(q[j]) * b[i + j];
    s += Q8Scale(row) * block;
  }
  return s;
}

void AxpyQ8Portable(float a, const uint8_t* row, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 32, row += 34) {
    const float ad = a * Q8Scale(row);
    const int8_t* q = Q8Values(row);
    for (int j = 0; j < 32; ++j) y[i + j] += ad * static_cast<float>(q[j]);
  }
}

void DotQ8RowsPortable(const uint8_t* rows, int64_t stride, int64_t n_rows, const float* b,
                       int64_t n, float* out) {
  for (int64_t j = 0; j < n_rows; ++j) out[j] = DotQ8Portable(rows + j * stride, b, n);
}

void AxpyQ8RowsPortable(const float* w, const uint8_t* rows, int64_t stride, int64_t n_rows,
                        float* y, int64_t n) {
  for (int64_t j = 0; j < n_rows; ++j) AxpyQ8Portable(w[j], rows + j * stride, y, n);
}

void DotF16RowsHeadsPortable(const uint16_t* rows, int64_t stride, int64_t n_rows, const float* b,
                             int64_t b_stride, int heads, int64_t n, float* out,
                             int64_t out_stride) {
  for (int h = 0; h < heads; ++h) {
    DotRowsPortable<uint16_t, DotF16Portable>(rows, stride, n_rows, b + h * b_stride, n,
                                              out + h * out_stride);
  }
}

void AxpyF16RowsHeadsPortable(const float* w, int64_t w_stride, const uint16_t* rows,
                              int64_t stride, int64_t n_rows, int heads, float* y, int64_t y_stride,
                              int64_t n) {
  for (int h = 0; h < heads; ++h) {
    AxpyRowsPortable<uint16_t, AxpyF16Portable>(w + h * w_stride, rows, stride, n_rows,
                                                y + h * y_stride, n);
  }
}

constexpr SimdKernels kPortable = {"portable",
                                   DotF32Portable,
                                   DotF16Portable,
                                   F16ToF32Portable,
                                   Bf16ToF32Portable,
                                   F32ToF16Portable,
                                   AxpyF32Portable,
                                   AxpyF16Portable,
                                   DotRowsPortable<float, DotF32Portable>,
                                   DotRowsPortable<uint16_t, DotF16Portable>,
                                   AxpyRowsPortable<float, AxpyF32Portable>,
                                   AxpyRowsPortable<uint16_t, AxpyF16Portable>,
                                   DotQ8RowsPortable,
                                   AxpyQ8RowsPortable,
                                   DotF16RowsHeadsPortable,
                                   AxpyF16RowsHeadsPortable};

// ---- AVX2 + FMA + F16C ------------------------------------------------------
#if ORCD_ENGINE_X86
#define ORCD_AVX2 __attribute__((target("avx2,fma,f16c")))

ORCD_AVX2 inline float HorizontalSum(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)));
}

ORCD_AVX2 inline __m256 LoadF16(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

ORCD_AVX2 inline __m256 Load8(const float* p) { return _mm256_loadu_ps(p); }
ORCD_AVX2 inline __m256 Load8(const uint16_t* p) { return LoadF16(p); }
inline float ToF32(float v) { return v; }
inline float ToF32(uint16_t v) { return fp16_to_f32(v); }

// sum a[i] * b[i] with four FMA chains; a is f32 or f16.
template <typename A>
ORCD_AVX2 float DotAvx2(const A* a, const float* b, int64_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(),
         a3 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm256_fmadd_ps(Load8(a + i), _mm256_loadu_ps(b + i), a0);
    a1 = _mm256_fmadd_ps(Load8(a + i + 8), _mm256_loadu_ps(b + i + 8), a1);
    a2 = _mm256_fmadd_ps(Load8(a + i + 16), _mm256_loadu_ps(b + i + 16), a2);
    a3 = _mm256_fmadd_ps(Load8(a + i + 24), _mm256_loadu_ps(b + i + 24), a3);
  }
  for (; i + 8 <= n; i += 8) a0 = _mm256_fmadd_ps(Load8(a + i), _mm256_loadu_ps(b + i), a0);
  float s = HorizontalSum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  for (; i < n; ++i) s += ToF32(a[i]) * b[i];
  return s;
}

ORCD_AVX2 float DotF32Avx2(const float* a, const float* b, int64_t n) { return DotAvx2(a, b, n); }

ORCD_AVX2 float DotF16Avx2(const uint16_t* a, const float* b, int64_t n) {
  return DotAvx2(a, b, n);
}

ORCD_AVX2 void F16ToF32Avx2(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, LoadF16(in + i));
  for (; i < n; ++i) out[i] = fp16_to_f32(in[i]);
}

ORCD_AVX2 void Bf16ToF32Avx2(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i wide =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
    _mm256_storeu_ps(out + i, _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16)));
  }
  for (; i < n; ++i) out[i] = bf16_to_f32(in[i]);
}

ORCD_AVX2 void F32ToF16Avx2(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < n; ++i) out[i] = f32_to_fp16(in[i]);
}

ORCD_AVX2 void AxpyF32Avx2(float a, const float* x, float* y, int64_t n) {
  const __m256 va = _mm256_set1_ps(a);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
  }
  for (; i < n; ++i) y[i] += a * x[i];
}

ORCD_AVX2 void AxpyF16Avx2(float a, const uint16_t* x, float* y, int64_t n) {
  const __m256 va = _mm256_set1_ps(a);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, LoadF16(x + i), _mm256_loadu_ps(y + i)));
  }
  for (; i < n; ++i) y[i] += a * fp16_to_f32(x[i]);
}

// DotAvx2 of two rows a and c against one b, sharing b's loads: each row
// gets DotAvx2's chains, steps and order, so its bits.
template <typename A>
ORCD_AVX2 inline void DotPairAvx2(const A* a, const A* c, const float* b, int64_t n, float* out) {
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(),
         a3 = _mm256_setzero_ps();
  __m256 c0 = _mm256_setzero_ps(), c1 = _mm256_setzero_ps(), c2 = _mm256_setzero_ps(),
         c3 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 b0 = _mm256_loadu_ps(b + i), b1 = _mm256_loadu_ps(b + i + 8);
    const __m256 b2 = _mm256_loadu_ps(b + i + 16), b3 = _mm256_loadu_ps(b + i + 24);
    a0 = _mm256_fmadd_ps(Load8(a + i), b0, a0);
    c0 = _mm256_fmadd_ps(Load8(c + i), b0, c0);
    a1 = _mm256_fmadd_ps(Load8(a + i + 8), b1, a1);
    c1 = _mm256_fmadd_ps(Load8(c + i + 8), b1, c1);
    a2 = _mm256_fmadd_ps(Load8(a + i + 16), b2, a2);
    c2 = _mm256_fmadd_ps(Load8(c + i + 16), b2, c2);
    a3 = _mm256_fmadd_ps(Load8(a + i + 24), b3, a3);
    c3 = _mm256_fmadd_ps(Load8(c + i + 24), b3, c3);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 bv = _mm256_loadu_ps(b + i);
    a0 = _mm256_fmadd_ps(Load8(a + i), bv, a0);
    c0 = _mm256_fmadd_ps(Load8(c + i), bv, c0);
  }
  float sa = HorizontalSum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  float sc = HorizontalSum(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)));
  for (; i < n; ++i) {
    sa += ToF32(a[i]) * b[i];
    sc += ToF32(c[i]) * b[i];
  }
  out[0] = sa;
  out[1] = sc;
}

template <typename A>
ORCD_AVX2 void DotRowsAvx2(const A* rows, int64_t stride, int64_t n_rows, const float* b, int64_t n,
                           float* out) {
  int64_t j = 0;
  for (; j + 2 <= n_rows; j += 2)
    DotPairAvx2(rows + j * stride, rows + (j + 1) * stride, b, n, out + j);
  for (; j < n_rows; ++j) out[j] = DotAvx2(rows + j * stride, b, n);
}

// y[0, 8 * kVecs) += w[j] * row j for every row in order, y in registers:
// per element the FMAs of that many AxpyAvx2 calls, in the same order.
template <int kVecs, typename A>
ORCD_AVX2 inline void AxpyRowsBlockAvx2(const float* w, const A* rows, int64_t stride,
                                        int64_t n_rows, float* y) {
  __m256 acc[kVecs];
  for (int k = 0; k < kVecs; ++k) acc[k] = _mm256_loadu_ps(y + 8 * k);
  for (int64_t j = 0; j < n_rows; ++j) {
    const __m256 a = _mm256_set1_ps(w[j]);
    const A* x = rows + j * stride;
    for (int k = 0; k < kVecs; ++k) acc[k] = _mm256_fmadd_ps(a, Load8(x + 8 * k), acc[k]);
  }
  for (int k = 0; k < kVecs; ++k) _mm256_storeu_ps(y + 8 * k, acc[k]);
}

// AxpyRowsBlockAvx2<vecs> for a run-time vecs in [1, kVecs] (a row's last
// n % 64 elements in whole vectors).
template <int kVecs, typename A>
ORCD_AVX2 inline void AxpyRowsTailAvx2(int vecs, const float* w, const A* rows, int64_t stride,
                                       int64_t n_rows, float* y) {
  if constexpr (kVecs > 0) {
    if (vecs == kVecs) {
      AxpyRowsBlockAvx2<kVecs>(w, rows, stride, n_rows, y);
    } else {
      AxpyRowsTailAvx2<kVecs - 1>(vecs, w, rows, stride, n_rows, y);
    }
  }
}

template <typename A>
ORCD_AVX2 void AxpyRowsAvx2(const float* w, const A* rows, int64_t stride, int64_t n_rows, float* y,
                            int64_t n) {
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) AxpyRowsBlockAvx2<8>(w, rows + i, stride, n_rows, y + i);
  AxpyRowsTailAvx2<7>(static_cast<int>((n - i) / 8), w, rows + i, stride, n_rows, y + i);
  i += (n - i) / 8 * 8;
  for (; i < n; ++i) {
    for (int64_t j = 0; j < n_rows; ++j) y[i] += w[j] * ToF32(rows[j * stride + i]);
  }
}

// Eight int8 of a q8_0 block as floats.
ORCD_AVX2 inline __m256 LoadQ8(const int8_t* q) {
  return _mm256_cvtepi32_ps(
      _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q))));
}

ORCD_AVX2 float DotQ8Avx2(const uint8_t* row, const float* b, int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  for (int64_t i = 0; i < n; i += 32, row += 34) {
    const int8_t* q = Q8Values(row);
    __m256 block = _mm256_mul_ps(LoadQ8(q), _mm256_loadu_ps(b + i));
    block = _mm256_fmadd_ps(LoadQ8(q + 8), _mm256_loadu_ps(b + i + 8), block);
    block = _mm256_fmadd_ps(LoadQ8(q + 16), _mm256_loadu_ps(b + i + 16), block);
    block = _mm256_fmadd_ps(LoadQ8(q + 24), _mm256_loadu_ps(b + i + 24), block);
    acc = _mm256_fmadd_ps(_mm256_set1_ps(Q8Scale(row)), block, acc);
  }
  return HorizontalSum(acc);
}

ORCD_AVX2 void AxpyQ8Avx2(float a, const uint8_t* row, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 32, row += 34) {
    const __m256 ad = _mm256_set1_ps(a * Q8Scale(row));
    const int8_t* q = Q8Values(row);
    for (int c = 0; c < 32; c += 8) {
      _mm256_storeu_ps(y + i + c, _mm256_fmadd_ps(ad, LoadQ8(q + c), _mm256_loadu_ps(y + i + c)));
    }
  }
}

ORCD_AVX2 void DotQ8RowsAvx2(const uint8_t* rows, int64_t stride, int64_t n_rows, const float* b,
                             int64_t n, float* out) {
  for (int64_t j = 0; j < n_rows; ++j) out[j] = DotQ8Avx2(rows + j * stride, b, n);
}

ORCD_AVX2 void AxpyQ8RowsAvx2(const float* w, const uint8_t* rows, int64_t stride, int64_t n_rows,
                              float* y, int64_t n) {
  for (int64_t j = 0; j < n_rows; ++j) AxpyQ8Avx2(w[j], rows + j * stride, y, n);
}

// DotAvx2's last step for eight rows at once: each row's four lanes pairs
// meet in HorizontalSum's order (lanes i and i + 4, then 0 + 2 and 1 + 3,
// then those two), the same additions with the same operands, so out[r] has
// the single call's bits.
ORCD_AVX2 inline void HorizontalSum8(const __m256 (&v)[8], float* out) {
  __m256 x[4];  // x[p]: row 2p's four pair sums, then row 2p + 1's
  for (int p = 0; p < 4; ++p) {
    x[p] = _mm256_add_ps(_mm256_permute2f128_ps(v[2 * p], v[2 * p + 1], 0x20),
                         _mm256_permute2f128_ps(v[2 * p], v[2 * p + 1], 0x31));
  }
  __m256 t[2];  // t[q]: rows 4q and 4q + 2's two sums, then 4q + 1 and 4q + 3's
  for (int q = 0; q < 2; ++q) {
    t[q] = _mm256_add_ps(_mm256_shuffle_ps(x[2 * q], x[2 * q + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm256_shuffle_ps(x[2 * q], x[2 * q + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  }
  // Rows 0, 2, 4, 6, then 1, 3, 5, 7.
  const __m256 u = _mm256_add_ps(_mm256_shuffle_ps(t[0], t[1], _MM_SHUFFLE(2, 0, 2, 0)),
                                 _mm256_shuffle_ps(t[0], t[1], _MM_SHUFFLE(3, 1, 3, 1)));
  _mm256_storeu_ps(out, _mm256_permutevar8x32_ps(u, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}

// Eight rows at a time are converted once into f32 (exactly: the values
// LoadF16 gives) and every head's dots run over them with DotAvx2's four
// chains, for kN a multiple of 32 (no eight-wide or scalar steps).
template <int kN>
ORCD_AVX2 void DotF16RowsHeadsAvx2(const uint16_t* rows, int64_t stride, int64_t n_rows,
                                   const float* b, int64_t b_stride, int heads, float* out,
                                   int64_t out_stride) {
  static_assert(kN % 32 == 0);
  alignas(32) float k[8][kN];
  int64_t j = 0;
  for (; j + 8 <= n_rows; j += 8) {
    for (int r = 0; r < 8; ++r) {
      for (int i = 0; i < kN; i += 8)
        _mm256_store_ps(k[r] + i, LoadF16(rows + (j + r) * stride + i));
    }
    for (int h = 0; h < heads; ++h) {
      const float* q = b + h * b_stride;
      __m256 sums[8];
      for (int r = 0; r < 8; ++r) {
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(),
               a3 = _mm256_setzero_ps();
        for (int i = 0; i < kN; i += 32) {
          a0 = _mm256_fmadd_ps(_mm256_load_ps(k[r] + i), _mm256_loadu_ps(q + i), a0);
          a1 = _mm256_fmadd_ps(_mm256_load_ps(k[r] + i + 8), _mm256_loadu_ps(q + i + 8), a1);
          a2 = _mm256_fmadd_ps(_mm256_load_ps(k[r] + i + 16), _mm256_loadu_ps(q + i + 16), a2);
          a3 = _mm256_fmadd_ps(_mm256_load_ps(k[r] + i + 24), _mm256_loadu_ps(q + i + 24), a3);
        }
        sums[r] = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
      }
      HorizontalSum8(sums, out + h * out_stride + j);
    }
  }
  if (j == n_rows) return;
  for (int h = 0; h < heads; ++h) {
    DotRowsAvx2(rows + j * stride, stride, n_rows - j, b + h * b_stride, kN,
                out + h * out_stride + j);
  }
}

ORCD_AVX2 void DotF16RowsHeadsAnyAvx2(const uint16_t* rows, int64_t stride, int64_t n_rows,
                                      const float* b, int64_t b_stride, int heads, int64_t n,
                                      float* out, int64_t out_stride) {
  if (heads > 1 && n == 64) {
    DotF16RowsHeadsAvx2<64>(rows, stride, n_rows, b, b_stride, heads, out, out_stride);
  } else if (heads > 1 && n == 128) {
    DotF16RowsHeadsAvx2<128>(rows, stride, n_rows, b, b_stride, heads, out, out_stride);
  } else {
    for (int h = 0; h < heads; ++h)
      DotRowsAvx2(rows, stride, n_rows, b + h * b_stride, n, out + h * out_stride);
  }
}

// 16 columns from c of kHeads heads' y in registers: per element the FMAs of
// AxpyRowsBlockAvx2, in row order, each row's 16 values converted once.
template <int kHeads>
ORCD_AVX2 void AxpyF16HeadsBlockAvx2(const float* w, int64_t w_stride, const uint16_t* rows,
                                     int64_t stride, int64_t n_rows, float* y, int64_t y_stride,
                                     int64_t c) {
  __m256 acc[kHeads][2];
  for (int h = 0; h < kHeads; ++h) {
    acc[h][0] = _mm256_loadu_ps(y + h * y_stride + c);
    acc[h][1] = _mm256_loadu_ps(y + h * y_stride + c + 8);
  }
  for (int64_t j = 0; j < n_rows; ++j) {
    const __m256 v0 = LoadF16(rows + j * stride + c);
    const __m256 v1 = LoadF16(rows + j * stride + c + 8);
    for (int h = 0; h < kHeads; ++h) {
      const __m256 a = _mm256_broadcast_ss(w + h * w_stride + j);
      acc[h][0] = _mm256_fmadd_ps(a, v0, acc[h][0]);
      acc[h][1] = _mm256_fmadd_ps(a, v1, acc[h][1]);
    }
  }
  for (int h = 0; h < kHeads; ++h) {
    _mm256_storeu_ps(y + h * y_stride + c, acc[h][0]);
    _mm256_storeu_ps(y + h * y_stride + c + 8, acc[h][1]);
  }
}

// Heads four at a time (8 of the 16 ymm hold their sums), 16 columns a
// pass; the last n % 16 columns per head through AxpyRowsAvx2.
ORCD_AVX2 void AxpyF16RowsHeadsAvx2(const float* w, int64_t w_stride, const uint16_t* rows,
                                    int64_t stride, int64_t n_rows, int heads, float* y,
                                    int64_t y_stride, int64_t n) {
  constexpr void (*kBlocks[])(const float*, int64_t, const uint16_t*, int64_t, int64_t, float*,
                              int64_t,
                              int64_t) = {AxpyF16HeadsBlockAvx2<1>, AxpyF16HeadsBlockAvx2<2>,
                                          AxpyF16HeadsBlockAvx2<3>, AxpyF16HeadsBlockAvx2<4>};
  const int64_t whole = n / 16 * 16;
  for (int h0 = 0; h0 < heads; h0 += 4) {
    const int nh = heads - h0 < 4 ? heads - h0 : 4;
    for (int64_t c = 0; c < whole; c += 16) {
      kBlocks[nh - 1](w + h0 * w_stride, w_stride, rows, stride, n_rows, y + h0 * y_stride,
                      y_stride, c);
    }
  }
  if (whole == n) return;
  for (int h = 0; h < heads; ++h) {
    AxpyRowsAvx2(w + h * w_stride, rows + whole, stride, n_rows, y + h * y_stride + whole,
                 n - whole);
  }
}

constexpr SimdKernels kAvx2 = {"avx2",
                               DotF32Avx2,
                               DotF16Avx2,
                               F16ToF32Avx2,
                               Bf16ToF32Avx2,
                               F32ToF16Avx2,
                               AxpyF32Avx2,
                               AxpyF16Avx2,
                               DotRowsAvx2<float>,
                               DotRowsAvx2<uint16_t>,
                               AxpyRowsAvx2<float>,
                               AxpyRowsAvx2<uint16_t>,
                               DotQ8RowsAvx2,
                               AxpyQ8RowsAvx2,
                               DotF16RowsHeadsAnyAvx2,
                               AxpyF16RowsHeadsAvx2};

bool CpuHasAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("f16c");
}
#endif

}  // namespace

void QuantizeRowQ8_0(const float* in, uint8_t* out, int64_t n) {
  for (int64_t i = 0; i < n; i += kQ8_0BlockElems, out += 34) {
    uint16_t d;
    quantize_q8_0_block(in + i, &d, reinterpret_cast<int8_t*>(out + 2));
    __builtin_memcpy(out, &d, 2);
  }
}

bool SimdIsAvx2() { return &Simd() != &kPortable; }

const SimdKernels& Simd() {
#if ORCD_ENGINE_X86
  static const SimdKernels& chosen = CpuHasAvx2() ? kAvx2 : kPortable;
  return chosen;
#else
  return kPortable;
#endif
}

}  // namespace orcd::engine::cpu
