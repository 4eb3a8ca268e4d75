// IEEE binary16 and bfloat16 <-> binary32 conversions, header-only.
//
// Bit-exact with ggml: fp16 -> fp32 is exact, fp32 -> fp16 and fp32 -> bf16
// round to nearest, ties to even (what F16C's vcvtps2ph and ggml's software
// fallback do). Plain integer code so the same functions run on the host and,
// compiled by nvcc, on the device.
#ifndef ORCD_CPP_HALF_H_
#define ORCD_CPP_HALF_H_

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define ORCD_HALF_HD __host__ __device__
#else
#define ORCD_HALF_HD
#endif

namespace orcd {

ORCD_HALF_HD inline float bits_to_f32(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

ORCD_HALF_HD inline uint32_t f32_to_bits(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}

// binary16 -> binary32, exact (subnormals, infinities and NaNs included).
ORCD_HALF_HD inline float fp16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1F) return bits_to_f32(sign | 0x7F800000u | (mant << 13));  // inf / NaN
  if (exp != 0) return bits_to_f32(sign | ((exp + 112u) << 23) | (mant << 13));
  if (mant == 0) return bits_to_f32(sign);  // signed zero
  // Subnormal: normalise the mantissa; value = mant * 2^-24.
  uint32_t e = 113;  // exponent of 2^-14 in binary32, minus one per shift below
  while ((mant & 0x400u) == 0) {
    mant <<= 1;
    --e;
  }
  return bits_to_f32(sign | (e << 23) | ((mant & 0x3FFu) << 13));
}

// binary32 -> binary16, round to nearest even; overflow gives inf, NaN stays NaN.
ORCD_HALF_HD inline uint16_t f32_to_fp16(float f) {
  const uint32_t x = f32_to_bits(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);   // NaN
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (abs >= 0x38800000u) {  // normal binary16 result (|f| >= 2^-14)
    const uint32_t rounded = abs + 0x0FFFu + ((abs >> 13) & 1u);  // RNE on the 13 dropped bits
    return static_cast<uint16_t>(sign | ((rounded - (112u << 23)) >> 13));
  }
  if (abs < 0x33000000u) return sign;  // below half the smallest subnormal: zero
  // Subnormal binary16: shift the full 24-bit significand, round to nearest even.
  const uint32_t e = abs >> 23;
  const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126u - e;  // 14..24
  const uint32_t half = 1u << (shift - 1);
  const uint32_t rest = mant & ((1u << shift) - 1u);
  uint32_t q = mant >> shift;
  if (rest > half || (rest == half && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

// bfloat16 -> binary32, exact.
ORCD_HALF_HD inline float bf16_to_f32(uint16_t h) {
  return bits_to_f32(static_cast<uint32_t>(h) << 16);
}

// binary32 -> bfloat16, round to nearest even; NaN stays a quiet NaN (ggml's rule).
ORCD_HALF_HD inline uint16_t f32_to_bf16(float f) {
  const uint32_t x = f32_to_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 64u);
  return static_cast<uint16_t>((x + (0x7FFFu + ((x >> 16) & 1u))) >> 16);
}

}  // namespace orcd

#undef ORCD_HALF_HD

#endif  // ORCD_CPP_HALF_H_
