// Q4_0 CPU: ggml's quantize_row_q4_0_ref and an AVX2 block decoder.
#include "q4/q4_0.h"

#include <algorithm>

#include "common/avx2_convert.h"
#include "common/cpu_kernels.h"
#include "common/reference_quantizer.h"

namespace orcd::quant {
namespace {

struct Q4_0Cpu : Q4_0 {
  static void quantize(const float* x, Block& y) {
    const float max = max_by_magnitude(x, kElems);
    const float d = max / -8;
    const float id = d ? 1.0f / d : 0.0f;
    y.d = f32_to_fp16(d);
    for (int j = 0; j < 16; ++j) {
      const int xi0 = std::min(15, static_cast<int>(x[j] * id + 8.5f));
      const int xi1 = std::min(15, static_cast<int>(x[16 + j] * id + 8.5f));
      y.qs[j] = static_cast<uint8_t>(xi0 | (xi1 << 4));
    }
  }

#if ORCD_QUANT_HAVE_X86
  ORCD_QUANT_AVX2 static void decode_avx2(const Block& b, float* out) {
    using namespace avx2_convert;
    const __m256 d = _mm256_set1_ps(fp16_to_f32(b.d));
    const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
    const __m128i eight = _mm_set1_epi8(8);
    store_i8x16_mul(out, _mm_sub_epi8(low_nibbles(qs), eight), d);
    store_i8x16_mul(out + 16, _mm_sub_epi8(high_nibbles(qs), eight), d);
  }
#endif
};

}  // namespace

extern const CpuKernels kCpuKernels_Q4_0 = make_cpu_kernels<Q4_0Cpu>();

}  // namespace orcd::quant
