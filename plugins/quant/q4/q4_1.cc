// Q4_1 CPU: ggml's quantize_row_q4_1_ref and an AVX2 block decoder.
#include "q4/q4_1.h"

#include <algorithm>

#include "common/avx2_convert.h"
#include "common/cpu_kernels.h"
#include "common/reference_quantizer.h"

namespace orcd::quant {
namespace {

struct Q4_1Cpu : Q4_1 {
  static void quantize(const float* x, Block& y) {
    const MinMax mm = min_max(x, kElems);
    const float d = (mm.max - mm.min) / ((1 << 4) - 1);
    const float id = d ? 1.0f / d : 0.0f;
    y.d = f32_to_fp16(d);
    y.m = f32_to_fp16(mm.min);
    for (int j = 0; j < 16; ++j) {
      const int xi0 = std::min(15, static_cast<int>((x[j] - mm.min) * id + 0.5f));
      const int xi1 = std::min(15, static_cast<int>((x[16 + j] - mm.min) * id + 0.5f));
      y.qs[j] = static_cast<uint8_t>(xi0 | (xi1 << 4));
    }
  }

#if ORCD_QUANT_HAVE_X86
  ORCD_QUANT_AVX2 static void decode_avx2(const Block& b, float* out) {
    using namespace avx2_convert;
    const __m256 d = _mm256_set1_ps(fp16_to_f32(b.d));
    const __m256 m = _mm256_set1_ps(fp16_to_f32(b.m));
    const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
    store_u8x16_mul_add(out, low_nibbles(qs), d, m);
    store_u8x16_mul_add(out + 16, high_nibbles(qs), d, m);
  }
#endif
};

}  // namespace

extern const CpuKernels kCpuKernels_Q4_1 = make_cpu_kernels<Q4_1Cpu>();

}  // namespace orcd::quant
