// Q5_0 CPU: ggml's quantize_row_q5_0_ref and an AVX2 block decoder.
#include "q4/q5_0.h"

#include <algorithm>
#include <cstring>

#include "common/avx2_convert.h"
#include "common/cpu_kernels.h"
#include "common/q8_activations.h"
#include "common/reference_quantizer.h"

namespace orcd::quant {
namespace {

struct Q5_0Cpu : Q5_0 {
  static void quantize(const float* x, Block& y) {
    const float max = max_by_magnitude(x, kElems);
    const float d = max / -16;
    const float id = d ? 1.0f / d : 0.0f;
    y.d = f32_to_fp16(d);
    uint32_t qh = 0;
    for (int j = 0; j < 16; ++j) {
      const int xi0 = std::min(31, static_cast<int>(x[j] * id + 16.5f));
      const int xi1 = std::min(31, static_cast<int>(x[16 + j] * id + 16.5f));
      y.qs[j] = static_cast<uint8_t>((xi0 & 0x0F) | ((xi1 & 0x0F) << 4));
      qh |= ((static_cast<uint32_t>(xi0) & 0x10u) >> 4) << j;  // bit 4 of element j
      qh |= ((static_cast<uint32_t>(xi1) & 0x10u) >> 4) << (j + 16);
    }
    std::memcpy(y.qh, &qh, sizeof qh);  // little-endian, as ggml
  }

#if ORCD_QUANT_HAVE_X86
  ORCD_QUANT_AVX2 static void decode_avx2(const Block& b, float* out) {
    using namespace avx2_convert;
    const __m256 d = _mm256_set1_ps(fp16_to_f32(b.d));
    const uint32_t qh = load_le32(b.qh);
    const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
    const __m128i sixteen = _mm_set1_epi8(16);
    const __m128i lo = _mm_or_si128(low_nibbles(qs), bits16_to_0x10(qh & 0xFFFFu));
    const __m128i hi = _mm_or_si128(high_nibbles(qs), bits16_to_0x10(qh >> 16));
    store_i8x16_mul(out, _mm_sub_epi8(lo, sixteen), d);
    store_i8x16_mul(out + 16, _mm_sub_epi8(hi, sixteen), d);
  }

  // decode_avx2 fused with the dot product: elements 0..15 into chains
  // (a0, a1), 16..31 into (a2, a3), as the buffered matmul adds them.
  ORCD_QUANT_AVX2 static void dot_avx2(const Block& b, const float* x, __m256& a0, __m256& a1,
                                       __m256& a2, __m256& a3) {
    using namespace avx2_convert;
    const __m256 d = _mm256_set1_ps(fp16_to_f32(b.d));
    const uint32_t qh = load_le32(b.qh);
    const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
    const __m128i sixteen = _mm_set1_epi8(16);
    const __m128i lo = _mm_or_si128(low_nibbles(qs), bits16_to_0x10(qh & 0xFFFFu));
    const __m128i hi = _mm_or_si128(high_nibbles(qs), bits16_to_0x10(qh >> 16));
    fma_i8x16_mul(_mm_sub_epi8(lo, sixteen), d, x, a0, a1);
    fma_i8x16_mul(_mm_sub_epi8(hi, sixteen), d, x + 16, a2, a3);
  }

  // 8-bit activations (q8_activations.h): the 5-bit values minus 16 as int8.
  using XBlock = q8::Q8x32;
  ORCD_QUANT_AVX2 __attribute__((always_inline)) static inline __m256i q8_weights(const Block& b) {
    // Bit i of qh to byte i (all ones when set), ggml's bytes_from_bits_32.
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32(static_cast<int>(load_le32(b.qh))),
        _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0));
    const __m256i bit_set = _mm256_cmpeq_epi8(
        _mm256_or_si256(spread, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe)), _mm256_set1_epi64x(-1));
    const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
    const __m256i nibbles =
        _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(qs, 4), qs), _mm256_set1_epi8(0x0F));
    // nibble | 0xF0 is nibble - 16 as int8 when the fifth bit is clear; when
    // set, nibble + 16 - 16 = nibble.
    return _mm256_or_si256(nibbles, _mm256_andnot_si256(bit_set, _mm256_set1_epi8(-16)));
  }

  ORCD_QUANT_AVX2 static void dot_q8_avx2(const Block& b, const XBlock& x, __m256& acc) {
    q8::accumulate(q8::dot_s8s8(q8_weights(b), q8::load_q(x)), q8::half_to_float_avx2(b.d) * x.d,
                   acc);
  }

  // Two blocks per zmm in the VNNI kernels (q8_pairs.h): the stored 5-bit
  // values, w + 16.
  static constexpr bool kPairedBlocks = true;
  static constexpr int kWeightOffset = 16;
  ORCD_QUANT_AVX512_VNNI static __m512i unsigned_weight_pair(const Block* b) {
    // 128-bit lanes: b[0].qs twice, b[1].qs twice; the second of each pair
    // shifted to its high nibbles (elements 16..31).
    const __m512i qs = _mm512_mask_broadcast_i32x4(
        _mm512_maskz_broadcast_i32x4(0x00FF,
                                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(b[0].qs))),
        0xFF00, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b[1].qs)));
    const __m512i nibbles = _mm512_and_si512(
        _mm512_srlv_epi16(qs, _mm512_set_epi64(0x0004000400040004, 0x0004000400040004, 0, 0,
                                               0x0004000400040004, 0x0004000400040004, 0, 0)),
        _mm512_set1_epi8(0x0F));
    // Bit i of qh is element i's fifth bit: byte i of the pair gets 16.
    const __mmask64 fifth = static_cast<__mmask64>(load_le32(b[0].qh)) |
                            (static_cast<__mmask64>(load_le32(b[1].qh)) << 32);
    return _mm512_mask_add_epi8(nibbles, fifth, nibbles, _mm512_set1_epi8(16));
  }

  // The same sums with vpdpbusd (q8::dot_s8s8_vnni): an odd last block of
  // the VNNI kernels, whose other blocks go two at a time (q8_pairs.h).
  ORCD_QUANT_AVX512_VNNI static void dot_q8_vnni(const Block& b, const XBlock& x, __m256& acc) {
    q8::accumulate(q8::dot_s8s8_vnni(q8_weights(b), q8::load_q(x)), q8::half_to_float(b.d) * x.d,
                   acc);
  }
#endif
};

}  // namespace

extern const CpuKernels kCpuKernels_Q5_0 = make_cpu_kernels<Q5_0Cpu>();

}  // namespace orcd::quant
