// Q5_K CPU: ggml's quantize_row_q5_K_ref and an AVX2 block decoder.
#include "q4/q5_k.h"

#include <cstring>

#include "common/avx2_convert.h"
#include "common/cpu_kernels.h"
#include "common/reference_quantizer.h"

namespace orcd::quant {
namespace {

struct Q5_KCpu : Q5_K {
  static void quantize(const float* x, Block& y) {
    uint8_t L[kElems];
    quantize_k4_super_block(x, /*nmax=*/31, /*rmin=*/-0.5f, /*rdelta=*/0.1f, /*nstep=*/15, y.scales,
                            &y.d, &y.dmin, L);
    std::memset(y.qh, 0, sizeof y.qh);
    uint8_t m1 = 1, m2 = 2;
    for (int n = 0; n < kElems; n += 64) {
      uint8_t* ql = y.qs + n / 2;
      for (int j = 0; j < 32; ++j) {
        int l1 = L[n + j];
        if (l1 > 15) {
          l1 -= 16;
          y.qh[j] |= m1;
        }
        int l2 = L[n + j + 32];
        if (l2 > 15) {
          l2 -= 16;
          y.qh[j] |= m2;
        }
        ql[j] = static_cast<uint8_t>(l1 | (l2 << 4));
      }
      m1 = static_cast<uint8_t>(m1 << 2);
      m2 = static_cast<uint8_t>(m2 << 2);
    }
  }

#if ORCD_QUANT_HAVE_X86
  ORCD_QUANT_AVX2 static void decode_avx2(const Block& b, float* out) {
    using namespace avx2_convert;
    const float d = fp16_to_f32(b.d);
    const float dmin = fp16_to_f32(b.dmin);
    for (int g = 0; g < 4; ++g) {
      const auto [d1, m1, d2, m2] = k_group_scales(g, b.scales, d, dmin);
      float* o = out + 64 * g;
      for (int h = 0; h < 2; ++h) {
        const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs + 32 * g + 16 * h));
        const __m128i qh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qh + 16 * h));
        store_u8x16_mul_sub(o + 16 * h, _mm_or_si128(low_nibbles(q), bit_to_0x10(qh, 2 * g)), d1,
                            m1);
        store_u8x16_mul_sub(o + 32 + 16 * h,
                            _mm_or_si128(high_nibbles(q), bit_to_0x10(qh, 2 * g + 1)), d2, m2);
      }
    }
  }
#endif
};

}  // namespace

extern const CpuKernels kCpuKernels_Q5_K = make_cpu_kernels<Q5_KCpu>();

}  // namespace orcd::quant
