// Q4_K CPU: ggml's quantize_row_q4_K_ref and an AVX2 block decoder.
#include "q4/q4_k.h"

#include "common/avx2_convert.h"
#include "common/cpu_kernels.h"
#include "common/q8_activations.h"
#include "common/reference_quantizer.h"

namespace orcd::quant {
namespace {

struct Q4_KCpu : Q4_K {
  static void quantize(const float* x, Block& y) {
    uint8_t L[kElems];
    quantize_k4_super_block(x, /*nmax=*/15, /*rmin=*/-1.f, /*rdelta=*/0.1f, /*nstep=*/20, y.scales,
                            &y.d, &y.dmin, L);
    for (int g = 0; g < 4; ++g) {  // group g: low nibbles elements 64g.., high 64g+32..
      for (int l = 0; l < 32; ++l) {
        y.qs[32 * g + l] = static_cast<uint8_t>(L[64 * g + l] | (L[64 * g + l + 32] << 4));
      }
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
        store_u8x16_mul_sub(o + 16 * h, low_nibbles(q), d1, m1);
        store_u8x16_mul_sub(o + 32 + 16 * h, high_nibbles(q), d2, m2);
      }
    }
  }

  // decode_avx2 and a dot product with x in one pass (batch-1 decode: no
  // store and reload of the decoded block). Elements 32i + [0, 8) go to a0,
  // + [8, 16) to a1, + [16, 24) to a2, + [24, 32) to a3, each chain in
  // increasing element order: exactly the matmul's accumulation.
  ORCD_QUANT_AVX2 static void dot_avx2(const Block& b, const float* x, __m256& a0, __m256& a1,
                                       __m256& a2, __m256& a3) {
    using namespace avx2_convert;
    const float d = fp16_to_f32(b.d);
    const float dmin = fp16_to_f32(b.dmin);
    for (int g = 0; g < 4; ++g) {
      const auto [d1, m1, d2, m2] = k_group_scales(g, b.scales, d, dmin);
      const float* xg = x + 64 * g;
      const __m128i q0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs + 32 * g));
      const __m128i q1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs + 32 * g + 16));
      fma_u8x16_mul_sub(low_nibbles(q0), d1, m1, xg, a0, a1);
      fma_u8x16_mul_sub(high_nibbles(q0), d2, m2, xg + 32, a0, a1);
      fma_u8x16_mul_sub(low_nibbles(q1), d1, m1, xg + 16, a2, a3);
      fma_u8x16_mul_sub(high_nibbles(q1), d2, m2, xg + 48, a2, a3);
    }
  }

  // 8-bit activations (q8_activations.h): sub-block s is d*sc*q - dmin*m, so
  // its dot is d*sc*x.d*sum(q*xq) - dmin*m*x.sum; the min terms add up in
  // `offset`.
  ORCD_QUANT_AVX2 static void dot_q8_avx2(const Block& b, const q8::Q8x32* x, __m256& acc,
                                          float& offset) {
    const float d = fp16_to_f32(b.d);
    const float dmin = fp16_to_f32(b.dmin);
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    for (int g = 0; g < 4; ++g) {
      const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs + 32 * g));
      const q8::Q8x32& x_lo = x[2 * g];
      const q8::Q8x32& x_hi = x[2 * g + 1];
      uint8_t sc, m;
      get_scale_min_k4(2 * g, b.scales, &sc, &m);
      q8::accumulate(q8::dot_u8s8(_mm256_and_si256(q, low4), q8::load_q(x_lo)), d * sc * x_lo.d,
                     acc);
      offset -= dmin * m * x_lo.sum;
      get_scale_min_k4(2 * g + 1, b.scales, &sc, &m);
      q8::accumulate(
          q8::dot_u8s8(_mm256_and_si256(_mm256_srli_epi16(q, 4), low4), q8::load_q(x_hi)),
          d * sc * x_hi.d, acc);
      offset -= dmin * m * x_hi.sum;
    }
  }
#endif
};

}  // namespace

extern const CpuKernels kCpuKernels_Q4_K = make_cpu_kernels<Q4_KCpu>();

}  // namespace orcd::quant
