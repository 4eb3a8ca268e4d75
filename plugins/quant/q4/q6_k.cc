// Q6_K CPU: ggml's quantize_row_q6_K_ref and an AVX2 block decoder.
#include "q4/q6_k.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/avx2_convert.h"
#include "common/cpu_kernels.h"
#include "common/q8_activations.h"
#include "common/q8_runs.h"
#include "common/reference_quantizer.h"

namespace orcd::quant {
namespace {

struct Q6_KCpu : Q6_K {
  static void quantize(const float* x, Block& y) {
    int8_t L[kElems];
    float scales[16];
    float max_scale = 0;
    float max_abs_scale = 0;
    for (int ib = 0; ib < 16; ++ib) {
      const float scale = make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib, 1, nullptr);
      scales[ib] = scale;
      const float abs_scale = std::fabs(scale);
      if (abs_scale > max_abs_scale) {
        max_abs_scale = abs_scale;
        max_scale = scale;
      }
    }
    if (max_abs_scale < 1e-15f) {  // ggml's GROUP_MAX_EPS: an all-zero block
      std::memset(&y, 0, sizeof y);
      return;
    }
    const float iscale = -128.f / max_scale;
    y.d = f32_to_fp16(1 / iscale);
    for (int ib = 0; ib < 16; ++ib) {
      y.scales[ib] = static_cast<int8_t>(std::min(127, nearest_int(iscale * scales[ib])));
    }
    for (int j = 0; j < 16; ++j) {
      const float d = fp16_to_f32(y.d) * y.scales[j];
      if (!d) continue;
      for (int ii = 0; ii < 16; ++ii) {
        const int l = nearest_int(x[16 * j + ii] / d);
        L[16 * j + ii] = static_cast<int8_t>(std::max(-32, std::min(31, l)) + 32);
      }
    }
    for (int half = 0; half < 2; ++half) {
      uint8_t* ql = y.ql + 64 * half;
      uint8_t* qh = y.qh + 32 * half;
      const int8_t* Lh = L + 128 * half;
      for (int l = 0; l < 32; ++l) {
        const int q1 = Lh[l + 0] & 0xF;
        const int q2 = Lh[l + 32] & 0xF;
        const int q3 = Lh[l + 64] & 0xF;
        const int q4 = Lh[l + 96] & 0xF;
        ql[l + 0] = static_cast<uint8_t>(q1 | (q3 << 4));
        ql[l + 32] = static_cast<uint8_t>(q2 | (q4 << 4));
        qh[l] = static_cast<uint8_t>((Lh[l] >> 4) | ((Lh[l + 32] >> 4) << 2) |
                                     ((Lh[l + 64] >> 4) << 4) | ((Lh[l + 96] >> 4) << 6));
      }
    }
  }

#if ORCD_QUANT_HAVE_X86
  // Bytes l = 16h .. 16h + 15 of half `half`: the 6-bit values minus 32 of
  // elements l, l + 32, l + 64, l + 96 (scales sc[h + 0/2/4/6] of the half).
  ORCD_QUANT_AVX2 __attribute__((always_inline)) static inline void unpack_quarter(const Block& b,
                                                                                   int half, int h,
                                                                                   __m128i q[4]) {
    using namespace avx2_convert;
    const __m128i low4 = _mm_set1_epi8(0x0F);
    const __m128i bits45 = _mm_set1_epi8(0x30);
    const __m128i bias = _mm_set1_epi8(32);
    const uint8_t* ql = b.ql + 64 * half;
    const uint8_t* qh = b.qh + 32 * half;
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ql + 16 * h));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ql + 32 + 16 * h));
    const __m128i hb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qh + 16 * h));
    q[0] = _mm_or_si128(_mm_and_si128(a, low4), _mm_and_si128(_mm_slli_epi16(hb, 4), bits45));
    q[1] = _mm_or_si128(_mm_and_si128(c, low4), _mm_and_si128(_mm_slli_epi16(hb, 2), bits45));
    q[2] = _mm_or_si128(high_nibbles(a), _mm_and_si128(hb, bits45));
    q[3] = _mm_or_si128(high_nibbles(c), _mm_and_si128(_mm_srli_epi16(hb, 2), bits45));
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) q[k] = _mm_sub_epi8(q[k], bias);
  }

  ORCD_QUANT_AVX2 static void decode_avx2(const Block& b, float* out) {
    using namespace avx2_convert;
    const float d = fp16_to_f32(b.d);
    for (int half = 0; half < 2; ++half) {
      const int8_t* sc = b.scales + 8 * half;
      float* o = out + 128 * half;
      for (int h = 0; h < 2; ++h) {
        __m128i q[4];
        unpack_quarter(b, half, h, q);
        // ggml: d * sc * q, left to right: (d * sc) rounds first.
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k)
          store_i8x16_mul(o + 16 * h + 32 * k, q[k], _mm256_set1_ps(d * sc[h + 2 * k]));
      }
    }
  }

  // decode_avx2 fused with the dot product (see Q4_K::dot_avx2): bytes
  // 16h.. of each half feed chains (2h, 2h + 1), in increasing element order.
  ORCD_QUANT_AVX2 static void dot_avx2(const Block& b, const float* x, __m256& a0, __m256& a1,
                                       __m256& a2, __m256& a3) {
    const float d = fp16_to_f32(b.d);
    for (int half = 0; half < 2; ++half) {
      const float* xh = x + 128 * half;
      dot_quarter(b, half, 0, d, xh, a0, a1);
      dot_quarter(b, half, 1, d, xh + 16, a2, a3);
    }
  }

  ORCD_QUANT_AVX2 __attribute__((always_inline)) static inline void dot_quarter(
      const Block& b, int half, int h, float d, const float* x, __m256& lo, __m256& hi) {
    using namespace avx2_convert;
    const int8_t* sc = b.scales + 8 * half;
    __m128i q[4];
    unpack_quarter(b, half, h, q);
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k)
      fma_i8x16_mul(q[k], _mm256_set1_ps(d * sc[h + 2 * k]), x + 32 * k, lo, hi);
  }

  // 8-bit activations (q8_activations.h), one x scale per 256 like ggml's
  // Q8_K: the 6-bit values q in 0..63 multiply x unsigned (maddubs), the
  // 16-element scales apply in integers (madd), and the -32 offset comes from
  // the x sums: sum(sc*(q-32)*xq) = sum(sc*q*xq) - 32*sum_j(sc_j*bsums_j).
  using XBlock = q8::Q8x256;

  // The unpacked block (matmul_q8 unpacks once per block for several tokens).
  struct PrepAvx2 {
    __m256i q[8];       // run i: the 6-bit values of elements 32i .. 32i + 31
    __m256i scales[8];  // their two 16-value scales, as int16 per 128-bit lane
    __m256i sc16;       // the 16 scales, for the -32 offset term
    float d;
  };

  ORCD_QUANT_AVX2 static void prepare_avx2(const Block& b, PrepAvx2& p) {
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const __m256i two = _mm256_set1_epi8(0x03);
    p.sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.scales)));
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = b.ql + 64 * half;
      const int8_t* sc = b.scales + 8 * half;
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql));
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql + 32));
      const __m256i hb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qh + 32 * half));
      const __m256i hi_bits[4] = {
          _mm256_slli_epi16(_mm256_and_si256(hb, two), 4),
          _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2), two), 4),
          _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 4), two), 4),
          _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 6), two), 4)};
      const __m256i low_bits[4] = {_mm256_and_si256(a, low4), _mm256_and_si256(c, low4),
                                   _mm256_and_si256(_mm256_srli_epi16(a, 4), low4),
                                   _mm256_and_si256(_mm256_srli_epi16(c, 4), low4)};
      for (int k = 0; k < 4; ++k) {  // elements 128 * half + 32k ..
        p.q[4 * half + k] = _mm256_or_si256(low_bits[k], hi_bits[k]);
        p.scales[4 * half + k] =
            _mm256_set_m128i(_mm_set1_epi16(sc[2 * k + 1]), _mm_set1_epi16(sc[2 * k]));
      }
    }
    p.d = q8::half_to_float_avx2(b.d);
  }

  // -32 * sum_j sc_j * bsums_j, in integers (exact; no float cancellation).
  ORCD_QUANT_AVX2 static __m256i sumi_init_avx2(const PrepAvx2& p, const XBlock& x) {
    const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.bsums));
    return _mm256_sub_epi32(_mm256_setzero_si256(),
                            _mm256_slli_epi32(_mm256_madd_epi16(p.sc16, bsums), 5));
  }

  ORCD_QUANT_AVX2 static void finish_avx2(const PrepAvx2& p, const XBlock& x, __m256i sumi,
                                          __m256& acc) {
    q8::accumulate(sumi, p.d * x.d, acc);
  }

  // The decode (matvec_q8) dot: the runs of prepare_avx2 + dot_by_runs, each
  // consumed as it is unpacked (nothing goes through the stack), the high bits
  // masked in place (unpack_quarter's shifts) and each run's two scales
  // shuffled from one register. Every run adds the same int32 lanes as
  // dot_by_runs (exact: integer adds in any order), and the float steps are
  // its finish_avx2, so the bits are matmul_q8's (quant_q8_matmul_test).
  ORCD_QUANT_AVX2 static void dot_q8_avx2(const Block& b, const XBlock& x, __m256& acc) {
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const __m256i bits45 = _mm256_set1_epi8(0x30);
    const __m256i sc16 =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.scales)));
    const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.bsums));
    __m256i sumi = _mm256_sub_epi32(_mm256_setzero_si256(),
                                    _mm256_slli_epi32(_mm256_madd_epi16(sc16, bsums), 5));
#pragma GCC unroll 2
    for (int half = 0; half < 2; ++half) {
      // The half's eight scales (int16) in both 128-bit lanes.
      const __m256i sc = _mm256_permute2x128_si256(sc16, sc16, half == 0 ? 0x00 : 0x11);
      const uint8_t* ql = b.ql + 64 * half;
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql));
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql + 32));
      const __m256i hb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qh + 32 * half));
      const __m256i q[4] = {_mm256_or_si256(_mm256_and_si256(a, low4),
                                            _mm256_and_si256(_mm256_slli_epi16(hb, 4), bits45)),
                            _mm256_or_si256(_mm256_and_si256(c, low4),
                                            _mm256_and_si256(_mm256_slli_epi16(hb, 2), bits45)),
                            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(a, 4), low4),
                                            _mm256_and_si256(hb, bits45)),
                            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(c, 4), low4),
                                            _mm256_and_si256(_mm256_srli_epi16(hb, 2), bits45))};
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) {  // elements 128 * half + 32k ..
        // Low lane: scale 2k of the half in every int16; high lane: 2k + 1.
        const __m256i scales = _mm256_shuffle_epi8(
            sc, _mm256_setr_epi8(4 * k, 4 * k + 1, 4 * k, 4 * k + 1, 4 * k, 4 * k + 1, 4 * k,
                                 4 * k + 1, 4 * k, 4 * k + 1, 4 * k, 4 * k + 1, 4 * k, 4 * k + 1,
                                 4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3, 4 * k + 2, 4 * k + 3,
                                 4 * k + 2, 4 * k + 3, 4 * k + 2, 4 * k + 3, 4 * k + 2, 4 * k + 3,
                                 4 * k + 2, 4 * k + 3, 4 * k + 2, 4 * k + 3, 4 * k + 2, 4 * k + 3));
        sumi = q8::run_step(q[k], q8::load_q(x, 128 * half + 32 * k), scales, sumi);
      }
    }
    q8::accumulate(sumi, q8::half_to_float_avx2(b.d) * x.d, acc);
  }

  // dot_q8_avx2 with AVX-512 VNNI: two 32-value runs per zmm (ql's 64 bytes
  // of a half are the low nibbles of runs 0 and 1, their high nibbles runs 2
  // and 3; qh broadcast and shifted per 256-bit half), vpdpwssd applies the
  // 16-value scales. Lanes j and j + 8 fold into dot_q8_avx2's lane j. Split
  // in an unpacking step (once per block in matmul_q8) and the per-token rest.
  struct PrepVnni {
    __m512i q[4];       // runs (0, 1) and (2, 3) of each half: 6-bit values
    __m512i scales[4];  // their 16-value scales, as int16 pairs
    __m256i sc16;       // the 16 scales, for the -32 offset term
    float d;
  };

  ORCD_QUANT_AVX512_VNNI static void prepare_vnni(const Block& b, PrepVnni& p) {
    p.sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.scales)));
    const __m512i scales = q8::broadcast_256(p.sc16);  // indices below 16 only
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    const __m512i bits45 = _mm512_set1_epi8(0x30);
    // qh bits (0,1) / (2,3) to bits 4, 5 for runs 0 / 1; (4,5) / (6,7) for runs 2 / 3.
    const __m512i shift_01 = q8::halves_epi16(4, 2);
    const __m512i shift_23 = q8::halves_epi16(0, 2);
    // 128-bit lane l of a run pair holds 16 values of scale 8 * half + l (+ 4).
    const __m512i lane_scale =
        _mm512_setr_epi64(0, 0, 0x0001000100010001, 0x0001000100010001, 0x0002000200020002,
                          0x0002000200020002, 0x0003000300030003, 0x0003000300030003);
#pragma GCC unroll 2
    for (int half = 0; half < 2; ++half) {
      const __m512i ql = _mm512_loadu_si512(b.ql + 64 * half);
      const __m512i qh =
          q8::broadcast_256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qh + 32 * half)));
      // (ql & low4) | high bits, then (ql >> 4 & low4) | high bits: 0xEC is A & C | B.
      p.q[2 * half] = _mm512_ternarylogic_epi32(
          ql, _mm512_and_si512(_mm512_sllv_epi16(qh, shift_01), bits45), low4, 0xEC);
      p.q[2 * half + 1] = _mm512_ternarylogic_epi32(
          _mm512_srli_epi16(ql, 4), _mm512_and_si512(_mm512_srlv_epi16(qh, shift_23), bits45), low4,
          0xEC);
      p.scales[2 * half] = _mm512_permutexvar_epi16(
          _mm512_add_epi16(lane_scale, _mm512_set1_epi16(static_cast<short>(8 * half))), scales);
      p.scales[2 * half + 1] = _mm512_permutexvar_epi16(
          _mm512_add_epi16(lane_scale, _mm512_set1_epi16(static_cast<short>(8 * half + 4))),
          scales);
    }
    p.d = q8::half_to_float(b.d);
  }

  ORCD_QUANT_AVX512_VNNI static void dot_prepared_vnni(const PrepVnni& p, const XBlock& x,
                                                       __m256& acc) {
    const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.bsums));
    const __m256i offset_term = _mm256_sub_epi32(
        _mm256_setzero_si256(), _mm256_slli_epi32(_mm256_madd_epi16(p.sc16, bsums), 5));
    __m512i sumi = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {  // x's values 64k ..
      sumi = _mm512_dpwssd_epi32(sumi, _mm512_maddubs_epi16(p.q[k], q8::load_q64(x, 64 * k)),
                                 p.scales[k]);
    }
    q8::accumulate(_mm256_add_epi32(offset_term, q8::fold_halves(sumi)), p.d * x.d, acc);
  }

  ORCD_QUANT_AVX512_VNNI static void dot_q8_vnni(const Block& b, const XBlock& x, __m256& acc) {
    PrepVnni p;
    prepare_vnni(b, p);
    dot_prepared_vnni(p, x, acc);
  }
#endif
};

}  // namespace

extern const CpuKernels kCpuKernels_Q6_K = make_cpu_kernels<Q6_KCpu>();

}  // namespace orcd::quant
