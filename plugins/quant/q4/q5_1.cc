// Q5_1 CPU: ggml's quantize_row_q5_1_ref and an AVX2 block decoder.
#include "q4/q5_1.h"

#include <cstring>

#include "common/avx2_convert.h"
#include "common/cpu_kernels.h"
#include "common/reference_quantizer.h"

namespace orcd::quant {
namespace {

struct Q5_1Cpu : Q5_1 {
  static void quantize(const float* x, Block& y) {
    const MinMax mm = min_max(x, kElems);
    const float d = (mm.max - mm.min) / ((1 << 5) - 1);
    const float id = d ? 1.0f / d : 0.0f;
    y.d = f32_to_fp16(d);
    y.m = f32_to_fp16(mm.min);
    uint32_t qh = 0;
    for (int j = 0; j < 16; ++j) {
      // ggml truncates to uint8_t without clamping here (unlike Q4_1).
      const uint32_t xi0 = static_cast<uint8_t>((x[j] - mm.min) * id + 0.5f);
      const uint32_t xi1 = static_cast<uint8_t>((x[16 + j] - mm.min) * id + 0.5f);
      y.qs[j] = static_cast<uint8_t>((xi0 & 0x0F) | ((xi1 & 0x0F) << 4));
      qh |= ((xi0 & 0x10u) >> 4) << j;
      qh |= ((xi1 & 0x10u) >> 4) << (j + 16);
    }
    std::memcpy(y.qh, &qh, sizeof qh);
  }

#if ORCD_QUANT_HAVE_X86
  ORCD_QUANT_AVX2 static void decode_avx2(const Block& b, float* out) {
    using namespace avx2_convert;
    const __m256 d = _mm256_set1_ps(fp16_to_f32(b.d));
    const __m256 m = _mm256_set1_ps(fp16_to_f32(b.m));
    const uint32_t qh = load_le32(b.qh);
    const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
    store_u8x16_mul_add(out, _mm_or_si128(low_nibbles(qs), bits16_to_0x10(qh & 0xFFFFu)), d, m);
    store_u8x16_mul_add(out + 16, _mm_or_si128(high_nibbles(qs), bits16_to_0x10(qh >> 16)), d, m);
  }
#endif
};

}  // namespace

extern const CpuKernels kCpuKernels_Q5_1 = make_cpu_kernels<Q5_1Cpu>();

}  // namespace orcd::quant
