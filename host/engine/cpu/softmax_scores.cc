#include "host/engine/cpu/softmax_scores.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "host/engine/cpu/simd.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define ORCD_SOFTMAX_X86 1
#else
#define ORCD_SOFTMAX_X86 0
#endif

namespace orcd::engine::cpu {
namespace {

// Cephes' expf: x = n ln2 + r, |r| <= ln2 / 2, ln2 in two parts so that r is
// nearly exact; e^r = 1 + r + r^2 p(r).
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kP0 = 1.9875691500e-4f;
constexpr float kP1 = 1.3981999507e-3f;
constexpr float kP2 = 8.3334519073e-3f;
constexpr float kP3 = 4.1665795894e-2f;
constexpr float kP4 = 1.6666665459e-1f;
constexpr float kP5 = 5.0000001201e-1f;

float TwoToThe(int n) {  // n in [-126, 0]: a normal float
  const uint32_t bits = static_cast<uint32_t>(n + 127) << 23;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Eight partial sums, lane i taking elements i, i + 8, ..., then HorizontalSum's
// tree (lanes i and i + 4, then 0 + 2 and 1 + 3, then those two), then the
// tail in order.
float LaneSum(const float acc[8]) {
  const float s0 = acc[0] + acc[4], s1 = acc[1] + acc[5], s2 = acc[2] + acc[6],
              s3 = acc[3] + acc[7];
  return (s0 + s2) + (s1 + s3);
}

#if ORCD_SOFTMAX_X86
#define ORCD_AVX2 __attribute__((target("avx2,fma")))

ORCD_AVX2 inline __m256 Exp8(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(kMinExpArg));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_set1_ps(kP0);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP5));
  const __m256 y = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
  const __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
}

ORCD_AVX2 float HorizontalMax(__m256 v) {
  float lanes[8];
  _mm256_storeu_ps(lanes, v);
  return *std::max_element(lanes, lanes + 8);
}

// Scores already scaled (and capped); returns the sum of the exponentials.
ORCD_AVX2 float ExpSumAvx2(float* s, int64_t n, float max) {
  const __m256 m = _mm256_set1_ps(max);
  __m256 acc = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 e = Exp8(_mm256_sub_ps(_mm256_loadu_ps(s + j), m));
    _mm256_storeu_ps(s + j, e);
    acc = _mm256_add_ps(acc, e);
  }
  float lanes[8];
  _mm256_storeu_ps(lanes, acc);
  float sum = LaneSum(lanes);
  for (; j < n; ++j) {
    s[j] = ScoreExp(s[j] - max);
    sum += s[j];
  }
  return sum;
}

ORCD_AVX2 float ScaleMaxAvx2(float* s, int64_t n, float scale) {
  const __m256 k = _mm256_set1_ps(scale);
  __m256 mx = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(s + j), k);
    _mm256_storeu_ps(s + j, v);
    mx = _mm256_max_ps(mx, v);
  }
  float max = HorizontalMax(mx);
  for (; j < n; ++j) {
    s[j] *= scale;
    max = std::max(max, s[j]);
  }
  return max;
}

ORCD_AVX2 void ScaleAvx2(float* s, int64_t n, float k) {
  const __m256 kv = _mm256_set1_ps(k);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) _mm256_storeu_ps(s + j, _mm256_mul_ps(_mm256_loadu_ps(s + j), kv));
  for (; j < n; ++j) s[j] *= k;
}
#endif

float ExpSumPortable(float* s, int64_t n, float max) {
  float acc[8] = {};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int i = 0; i < 8; ++i) {
      s[j + i] = ScoreExp(s[j + i] - max);
      acc[i] += s[j + i];
    }
  }
  float sum = LaneSum(acc);
  for (; j < n; ++j) {
    s[j] = ScoreExp(s[j] - max);
    sum += s[j];
  }
  return sum;
}

float ScaleMaxPortable(float* s, int64_t n, float scale) {
  float max = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < n; ++j) {
    s[j] *= scale;
    max = std::max(max, s[j]);
  }
  return max;
}

void ScalePortable(float* s, int64_t n, float k) {
  for (int64_t j = 0; j < n; ++j) s[j] *= k;
}

struct SoftmaxKernels {
  float (*scale_max)(float*, int64_t, float);
  float (*exp_sum)(float*, int64_t, float);
  void (*scale)(float*, int64_t, float);
};

constexpr SoftmaxKernels kPortableKernels{ScaleMaxPortable, ExpSumPortable, ScalePortable};

const SoftmaxKernels& Kernels() {
#if ORCD_SOFTMAX_X86
  static constexpr SoftmaxKernels kAvx2{ScaleMaxAvx2, ExpSumAvx2, ScaleAvx2};
  static const SoftmaxKernels& chosen = SimdIsAvx2() ? kAvx2 : kPortableKernels;
  return chosen;
#else
  return kPortableKernels;
#endif
}

}  // namespace

float ScoreExp(float x) {
  x = std::max(x, kMinExpArg);
  const float n = std::nearbyint(x * kLog2e);  // ties to even, as _mm256_round_ps
  float r = std::fma(-n, kLn2Hi, x);
  r = std::fma(-n, kLn2Lo, r);
  float p = kP0;
  p = std::fma(p, r, kP1);
  p = std::fma(p, r, kP2);
  p = std::fma(p, r, kP3);
  p = std::fma(p, r, kP4);
  p = std::fma(p, r, kP5);
  const float y = std::fma(p, r * r, r) + 1.0f;
  return y * TwoToThe(static_cast<int>(n));
}

namespace {

void Softmax(const SoftmaxKernels& k, float* s, int64_t n, float scale, float softcap,
             const float* sink) {
  float max;
  if (softcap > 0.0f) {
    max = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < n; ++j) {
      s[j] = softcap * std::tanh(s[j] * scale / softcap);
      max = std::max(max, s[j]);
    }
  } else {
    max = k.scale_max(s, n, scale);
  }
  if (sink) max = std::max(max, *sink);
  float sum = k.exp_sum(s, n, max);
  if (sink) sum += ScoreExp(*sink - max);
  k.scale(s, n, 1.0f / sum);
}

}  // namespace

void SoftmaxScores(float* s, int64_t n, float scale, float softcap, const float* sink) {
  Softmax(Kernels(), s, n, scale, softcap, sink);
}

void SoftmaxScoresPortable(float* s, int64_t n, float scale, float softcap, const float* sink) {
  Softmax(kPortableKernels, s, n, scale, softcap, sink);
}

}  // namespace orcd::engine::cpu
