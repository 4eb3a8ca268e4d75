// Q8_0 CPU: ggml's quantize_row_q8_0_ref (orcd/cpp/q8_0_block.h) and an AVX2
// block decoder.
#include "q4/q8_0.h"

#include "common/avx2_convert.h"
#include "common/cpu_kernels.h"
#include "common/q8_activations.h"
#include "orcd/cpp/q8_0_block.h"

namespace orcd::quant {
namespace {

struct Q8_0Cpu : Q8_0 {
  static void quantize(const float* x, Block& y) { quantize_q8_0_block(x, &y.d, y.qs); }

#if ORCD_QUANT_HAVE_X86
  ORCD_QUANT_AVX2 static void decode_avx2(const Block& b, float* out) {
    using namespace avx2_convert;
    const __m256 d = _mm256_set1_ps(fp16_to_f32(b.d));
    store_i8x16_mul(out, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs)), d);
    store_i8x16_mul(out + 16, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs + 16)), d);
  }

  // decode_avx2 fused with the dot product (see Q5_0Cpu::dot_avx2).
  ORCD_QUANT_AVX2 static void dot_avx2(const Block& b, const float* x, __m256& a0, __m256& a1,
                                       __m256& a2, __m256& a3) {
    using namespace avx2_convert;
    const __m256 d = _mm256_set1_ps(fp16_to_f32(b.d));
    fma_i8x16_mul(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs)), d, x, a0, a1);
    fma_i8x16_mul(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs + 16)), d, x + 16, a2, a3);
  }

  // 8-bit activations (q8_activations.h): one x block per weight block.
  using XBlock = q8::Q8x32;
  ORCD_QUANT_AVX2 __attribute__((always_inline)) static inline __m256i q8_weights(const Block& b) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs));
  }

  ORCD_QUANT_AVX2 static void dot_q8_avx2(const Block& b, const XBlock& x, __m256& acc) {
    q8::accumulate(q8::dot_s8s8(q8_weights(b), q8::load_q(x)), q8::half_to_float_avx2(b.d) * x.d,
                   acc);
  }

  // Two blocks per zmm in the VNNI kernels (q8_pairs.h): w + 128 (the sign
  // bit flipped).
  static constexpr bool kPairedBlocks = true;
  static constexpr int kWeightOffset = 128;
  ORCD_QUANT_AVX512_VNNI static __m512i unsigned_weight_pair(const Block* b) {
    const __m512i w = q8::bytes_pair(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[0].qs)),
                                     _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b[1].qs)));
    return _mm512_xor_si512(w, _mm512_set1_epi8(static_cast<char>(0x80)));
  }

  // The same sums with vpdpbusd (q8::dot_s8s8_vnni): an odd last block of
  // the VNNI kernels, whose other blocks go two at a time (q8_pairs.h).
  ORCD_QUANT_AVX512_VNNI static void dot_q8_vnni(const Block& b, const XBlock& x, __m256& acc) {
    q8::accumulate(q8::dot_s8s8_vnni(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs)),
                                     q8::load_q(x)),
                   q8::half_to_float(b.d) * x.d, acc);
  }
#endif
};

}  // namespace

extern const CpuKernels kCpuKernels_Q8_0 = make_cpu_kernels<Q8_0Cpu>();

}  // namespace orcd::quant
