// orcd/cpp/half.h against ggml (the F16 / BF16 fixtures) and against itself.
#include "orcd/cpp/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "quant_test_support.h"

namespace orcd::quant::test {
namespace {

std::vector<uint16_t> as_u16(const std::vector<uint8_t>& bytes) {
  std::vector<uint16_t> out(bytes.size() / 2);
  std::memcpy(out.data(), bytes.data(), out.size() * 2);
  return out;
}

TEST(Half, Fp16MatchesGgmlFixture) {
  const std::vector<float> src = read_f32(fixtures_dir() + "/F16.src.f32");
  const std::vector<uint16_t> q = as_u16(read_bytes(fixtures_dir() + "/F16.q.bin"));
  const std::vector<float> deq = read_f32(fixtures_dir() + "/F16.deq.f32");
  ASSERT_EQ(src.size(), 8u * 512u);
  ASSERT_EQ(q.size(), src.size());
  ASSERT_EQ(deq.size(), src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    ASSERT_EQ(f32_to_fp16(src[i]), q[i]) << "element " << i << " = " << src[i];
    ASSERT_TRUE(same_bits(fp16_to_f32(q[i]), deq[i])) << "element " << i;
  }
}

TEST(Half, Bf16MatchesGgmlFixture) {
  const std::vector<float> src = read_f32(fixtures_dir() + "/BF16.src.f32");
  const std::vector<uint16_t> q = as_u16(read_bytes(fixtures_dir() + "/BF16.q.bin"));
  const std::vector<float> deq = read_f32(fixtures_dir() + "/BF16.deq.f32");
  ASSERT_EQ(q.size(), src.size());
  ASSERT_EQ(deq.size(), src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    ASSERT_EQ(f32_to_bf16(src[i]), q[i]) << "element " << i << " = " << src[i];
    ASSERT_TRUE(same_bits(bf16_to_f32(q[i]), deq[i])) << "element " << i;
  }
}

// Every fp16 value converts to f32 and back unchanged, and equals its exact
// value (sign, exponent and mantissa decoded by hand in double).
TEST(Half, EveryFp16RoundTrips) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const uint16_t v = static_cast<uint16_t>(h);
    const float f = fp16_to_f32(v);
    const int exp = (v >> 10) & 0x1F;
    const int mant = v & 0x3FF;
    const double sign = (v & 0x8000) ? -1.0 : 1.0;
    if (exp == 0x1F) {
      EXPECT_TRUE(mant ? std::isnan(f) : std::isinf(f)) << h;
      if (mant) continue;  // NaN payloads need not survive
    } else {
      const double exact =
          exp == 0 ? sign * std::ldexp(mant, -24) : sign * std::ldexp(1024 + mant, exp - 25);
      ASSERT_EQ(static_cast<double>(f), exact) << h;
    }
    ASSERT_EQ(f32_to_fp16(f), v) << h;
  }
}

// Rounding: nearest, ties to even, against a double-precision model.
TEST(Half, Fp16RoundsToNearestEven) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint32_t> bits(0, 0xFFFFFFFFu);
  for (int i = 0; i < 200000; ++i) {
    const float f = bits_to_f32(bits(rng) & 0x47FFFFFFu);     // |f| < 2^17, incl. subnormals
    if (std::isnan(f) || std::fabs(f) >= 65520.0f) continue;  // overflow is tested below
    const uint16_t h = f32_to_fp16(f);
    const double got = fp16_to_f32(h);
    const double err = std::fabs(got - static_cast<double>(f));
    // No fp16 value is strictly nearer than the one chosen.
    const uint16_t up = static_cast<uint16_t>(h + 1), down = static_cast<uint16_t>(h - 1);
    for (uint16_t n : {up, down}) {
      const float nf = fp16_to_f32(n);
      if (std::isnan(nf) || (n & 0x7FFF) == 0x7C00 || ((n ^ h) & 0x8000)) continue;
      const double nerr = std::fabs(static_cast<double>(nf) - static_cast<double>(f));
      ASSERT_TRUE(err < nerr || (err == nerr && (h & 1) == 0))
          << "f = " << f << " -> " << got << ", neighbour " << nf;
    }
  }
  EXPECT_EQ(f32_to_fp16(65520.0f), 0x7C00);  // halfway to 2^16 rounds to inf
  EXPECT_EQ(f32_to_fp16(65519.0f), 0x7BFF);
  EXPECT_EQ(f32_to_fp16(std::ldexp(1.0f, -25)), 0x0000);  // half the smallest subnormal: even
  EXPECT_EQ(f32_to_fp16(std::ldexp(1.5f, -25)), 0x0001);
}

}  // namespace
}  // namespace orcd::quant::test
