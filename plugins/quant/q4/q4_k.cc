// Q4_K CPU: ggml's quantize_row_q4_K_ref and an AVX2 block decoder.
#include "q4/q4_k.h"

#include <cstring>

#include "common/avx2_convert.h"
#include "common/cpu_kernels.h"
#include "common/q8_activations.h"
#include "common/q8_runs.h"
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

  // 8-bit activations (q8_activations.h), one x scale per 256 like ggml's
  // Q8_K: sub-block s is d*sc_s*q - dmin*m_s, so the block's dot is
  // d*x.d*sum_s(sc_s*sum(q*xq)) - dmin*x.d*sum_s(m_s*sum(xq)); the scales are
  // applied in integers (q8_runs.h), one float conversion per block.
  using XBlock = q8::Q8x256;

  // The unpacked block (matmul_q8 unpacks once per block for several tokens).
  struct PrepAvx2 {
    __m256i q[8];        // runs of 32: group g's low nibbles, then its high ones
    __m256i scales[8];   // the run's sub-block scale in every int16
    __m256i mins_twice;  // each min twice, against x's 16-value sums
    float d, dmin;
  };

  ORCD_QUANT_AVX2 static void prepare_avx2(const Block& b, PrepAvx2& p) {
    // The 12 scale bytes to 8 scales and 8 mins with 32-bit masks (ggml's
    // kmask trick; the same values get_scale_min_k4 gives one at a time).
    uint32_t u[4];
    std::memcpy(u, b.scales, 12);
    u[3] = ((u[2] >> 4) & 0x0f0f0f0fu) | (((u[1] >> 6) & 0x03030303u) << 4);
    const uint32_t mins_lo = u[1] & 0x3f3f3f3fu;
    u[1] = (u[2] & 0x0f0f0f0fu) | (((u[0] >> 6) & 0x03030303u) << 4);
    u[2] = mins_lo;
    u[0] &= 0x3f3f3f3fu;
    const __m256i scales_mins =
        _mm256_cvtepu8_epi16(_mm_setr_epi32(static_cast<int>(u[0]), static_cast<int>(u[1]),
                                            static_cast<int>(u[2]), static_cast<int>(u[3])));
    const __m256i mins32 = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(scales_mins, 1));
    p.mins_twice = _mm256_or_si256(mins32, _mm256_slli_epi32(mins32, 16));
    const __m128i sc128 = _mm256_castsi256_si128(scales_mins);
    const __m256i scales = _mm256_set_m128i(sc128, sc128);
    const __m256i low4 = _mm256_set1_epi8(0x0F);
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) {
      const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs + 32 * g));
      p.q[2 * g] = _mm256_and_si256(q, low4);
      p.q[2 * g + 1] = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4);
      // Broadcast the int16 scales of sub-blocks 2g and 2g + 1.
      p.scales[2 * g] = _mm256_shuffle_epi8(
          scales, _mm256_set1_epi16(static_cast<short>(((4 * g + 1) << 8) | (4 * g))));
      p.scales[2 * g + 1] = _mm256_shuffle_epi8(
          scales, _mm256_set1_epi16(static_cast<short>(((4 * g + 3) << 8) | (4 * g + 2))));
    }
    p.d = q8::half_to_float_avx2(b.d);
    p.dmin = q8::half_to_float_avx2(b.dmin);
  }

  ORCD_QUANT_AVX2 static __m256i sumi_init_avx2(const PrepAvx2&, const XBlock&) {
    return _mm256_setzero_si256();
  }

  ORCD_QUANT_AVX2 static void finish_avx2(const PrepAvx2& p, const XBlock& x, __m256i sumi,
                                          __m256& acc) {
    finish_block(sumi, p.mins_twice, x, p.d, p.dmin, acc);
  }

  // The float steps of every Q4_K dot (AVX2 decode, AVX2 tiles, AVX-512
  // VNNI), so they share their bits: acc += d*x.d * sumi - dmin*x.d * (each
  // min times x's sums of its sub-block), lane by lane. The min products
  // stay eight lanes (exact int32: |m| <= 63, |sums| <= 4064) rather than
  // being summed per block: a horizontal sum per block and token cost
  // matmul_q8 a third of its speed.
  ORCD_QUANT_AVX2 __attribute__((always_inline)) static inline void finish_block(
      __m256i sumi, __m256i mins_twice, const XBlock& x, float d, float dmin, __m256& acc) {
    const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.bsums));
    const __m256i min_products = _mm256_madd_epi16(mins_twice, bsums);
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_set1_ps(d * x.d), acc);
    acc = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(min_products), _mm256_set1_ps(dmin * x.d), acc);
  }

  // A block's 6-bit sub-block scales (words 0..7) and mins (words 8..15),
  // decoded in SIMD registers (ggml's kmask steps on all four dwords): with
  // the scale bytes as dwords u0 u1 u2, [u0 & 0x3f.., (u2 & 0x0f..) | (u0 >> 6
  // & 0x03..) << 4, u1 & 0x3f.., (u2 >> 4 & 0x0f..) | (u1 >> 6 & 0x03..) << 4].
  // The 16-byte load stays inside the block (qs follows). Inlined into the
  // AVX2 and the AVX-512 VNNI dots alike.
  ORCD_QUANT_AVX2 __attribute__((always_inline)) static inline __m256i unpack_scales_mins(
      const Block& b) {
    const __m128i u = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.scales));
    const __m128i low_bits = _mm_and_si128(
        _mm_srlv_epi32(_mm_shuffle_epi32(u, _MM_SHUFFLE(2, 1, 2, 0)), _mm_setr_epi32(0, 0, 0, 4)),
        _mm_setr_epi32(0x3f3f3f3f, 0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f));
    const __m128i top_bits =
        _mm_and_si128(_mm_srli_epi32(_mm_shuffle_epi32(u, _MM_SHUFFLE(1, 1, 0, 0)), 2),
                      _mm_setr_epi32(0, 0x30303030, 0, 0x30303030));
    return _mm256_cvtepu8_epi16(_mm_or_si128(low_bits, top_bits));
  }

  // The decode (matvec_q8) dot: prepare_avx2 + dot_by_runs with each run
  // consumed as it is unpacked and the scales and mins decoded in SIMD
  // registers (prepare_vnni's kmask steps, on SSE/AVX2). The same int32 lanes
  // (exact: integer adds in any order), the same min products and the same float
  // steps as finish_avx2, so the bits are matmul_q8's (quant_q8_matmul_test).
  ORCD_QUANT_AVX2 static void dot_q8_avx2(const Block& b, const XBlock& x, __m256& acc) {
    const __m256i scales_mins = unpack_scales_mins(b);
    const __m256i mins_twice =
        _mm256_shuffle_epi8(_mm256_permute2x128_si256(scales_mins, scales_mins, 0x11),
                            _mm256_setr_epi8(0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7, 8, 9,
                                             8, 9, 10, 11, 10, 11, 12, 13, 12, 13, 14, 15, 14, 15));
    const __m256i scales = _mm256_permute2x128_si256(scales_mins, scales_mins, 0x00);
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    __m256i sumi = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) {
      const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs + 32 * g));
      const __m256i sc_lo = _mm256_shuffle_epi8(
          scales, _mm256_set1_epi16(static_cast<short>(((4 * g + 1) << 8) | (4 * g))));
      const __m256i sc_hi = _mm256_shuffle_epi8(
          scales, _mm256_set1_epi16(static_cast<short>(((4 * g + 3) << 8) | (4 * g + 2))));
      sumi = q8::run_step(_mm256_and_si256(q, low4), q8::load_q(x, 64 * g), sc_lo, sumi);
      sumi = q8::run_step(_mm256_and_si256(_mm256_srli_epi16(q, 4), low4),
                          q8::load_q(x, 64 * g + 32), sc_hi, sumi);
    }
    finish_block(sumi, mins_twice, x, q8::half_to_float_avx2(b.d), q8::half_to_float_avx2(b.dmin),
                 acc);
  }

  // dot_q8_avx2 with AVX-512 VNNI: a group's 32 bytes give both nibble runs
  // in one zmm (low nibbles, then high: x's 64 values in memory order),
  // vpdpwssd applies the sub-block scales and accumulates. Lane j < 8 and
  // lane j + 8 hold what dot_q8_avx2's lane j holds for the low and the high
  // run, so the two 256-bit halves add up to its exact int32 lanes. Split in
  // an unpacking step (once per block in matmul_q8, whatever the tokens) and
  // the per-token rest.
  struct PrepVnni {
    __m512i nibbles[4];  // group g's two runs
    __m512i scales[4];   // their sub-block scales, as int16 pairs
    __m256i mins_twice;  // each min twice, against x's 16-value sums
    float d, dmin;
  };

  ORCD_QUANT_AVX512_VNNI static void prepare_vnni(const Block& b, PrepVnni& p) {
    const __m256i scales_mins = unpack_scales_mins(b);
    p.mins_twice = _mm256_permutexvar_epi16(
        _mm256_setr_epi16(8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15), scales_mins);
    const __m512i scales = q8::broadcast_256(scales_mins);  // indices below 16 only
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    const __m512i high_run_shift = q8::halves_epi16(0, 4);
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) {
      const __m512i q =
          q8::broadcast_256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs + 32 * g)));
      p.nibbles[g] = _mm512_and_si512(_mm512_srlv_epi16(q, high_run_shift), low4);
      // Scale of sub-block 2g under the low run, 2g + 1 under the high one.
      p.scales[g] = _mm512_permutexvar_epi16(q8::halves_epi16(2 * g, 2 * g + 1), scales);
    }
    p.d = q8::half_to_float(b.d);
    p.dmin = q8::half_to_float(b.dmin);
  }

  ORCD_QUANT_AVX512_VNNI static void dot_prepared_vnni(const PrepVnni& p, const XBlock& x,
                                                       __m256& acc) {
    // Two accumulators (even and odd groups) halve the vpdpwssd latency chain.
    __m512i sumi[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
#pragma GCC unroll 4
    for (int g = 0; g < 4; ++g) {
      const __m512i pairs = _mm512_maddubs_epi16(p.nibbles[g], q8::load_q64(x, 64 * g));
      sumi[g % 2] = _mm512_dpwssd_epi32(sumi[g % 2], pairs, p.scales[g]);
    }
    finish_block(q8::fold_halves(_mm512_add_epi32(sumi[0], sumi[1])), p.mins_twice, x, p.d, p.dmin,
                 acc);
  }

  ORCD_QUANT_AVX512_VNNI static void dot_q8_vnni(const Block& b, const XBlock& x, __m256& acc) {
    PrepVnni p;
    prepare_vnni(b, p);
    dot_prepared_vnni(p, x, acc);
  }
#endif
};

}  // namespace

extern const CpuKernels kCpuKernels_Q4_K = make_cpu_kernels<Q4_KCpu>();

}  // namespace orcd::quant
