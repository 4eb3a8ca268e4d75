// MXFP4 CPU: ggml's quantize_row_mxfp4_ref and an AVX2 block decoder.
#include "mxfp4/mxfp4.h"

#include <algorithm>
#include <cmath>

#include "common/avx2_convert.h"
#include "common/cpu_kernels.h"
#include "common/q8_activations.h"

namespace orcd::quant {
namespace {

// ggml's best_index_mxfp4: the code whose value times e is nearest to x
// (the first one on ties, scanning codes 0..15).
int best_code(float x, float e) {
  int best = 0;
  float best_err = std::fabs(static_cast<float>(mxfp4_value(0)) * e - x);
  for (int i = 1; i < 16; ++i) {
    const float err = std::fabs(static_cast<float>(mxfp4_value(i)) * e - x);
    if (err < best_err) {
      best = i;
      best_err = err;
    }
  }
  return best;
}

struct MXFP4Cpu : MXFP4 {
  static void quantize(const float* x, Block& y) {
    float amax = 0.0f;
    for (int j = 0; j < kElems; ++j) amax = std::max(amax, std::fabs(x[j]));
    // The largest value (12 = 6 * 2) must not overflow: exponent floor(log2 amax) - 2.
    int e = 0;
    if (amax > 0.0f) e = static_cast<int>(std::floor(std::log2(amax)) - 2 + 127);
    y.e = static_cast<uint8_t>(std::clamp(e, 0, 255));
    const float d = e8m0_to_f32_half(y.e);
    for (int j = 0; j < 16; ++j) {
      y.qs[j] = static_cast<uint8_t>(best_code(x[j], d) | (best_code(x[16 + j], d) << 4));
    }
  }

#if ORCD_QUANT_HAVE_X86
  ORCD_QUANT_AVX2 static void decode_avx2(const Block& b, float* out) {
    using namespace avx2_convert;
    const __m128i values = _mm_setr_epi8(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
    const __m256 d = _mm256_set1_ps(e8m0_to_f32_half(b.e));
    const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
    store_i8x16_mul(out, _mm_shuffle_epi8(values, low_nibbles(qs)), d);
    store_i8x16_mul(out + 16, _mm_shuffle_epi8(values, high_nibbles(qs)), d);
  }

  // 8-bit activations (q8_activations.h): the doubled E2M1 values are int8
  // already (|v| <= 12), one table lookup per nibble.
  using XBlock = q8::Q8x32;
  ORCD_QUANT_AVX2 static void dot_q8_avx2(const Block& b, const XBlock& x, __m256& acc) {
    using namespace avx2_convert;
    const __m128i values = _mm_setr_epi8(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
    const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
    const __m256i w = _mm256_set_m128i(_mm_shuffle_epi8(values, high_nibbles(qs)),
                                       _mm_shuffle_epi8(values, low_nibbles(qs)));
    q8::accumulate(q8::dot_s8s8(w, q8::load_q(x)), e8m0_to_f32_half(b.e) * x.d, acc);
  }
#endif
};

}  // namespace

extern const CpuKernels kCpuKernels_MXFP4 = make_cpu_kernels<MXFP4Cpu>();

}  // namespace orcd::quant
