// The sampler's vector kernels on x86-64, one namespace per instruction set,
// behind sampler_kernels.h's dispatch. Each computes what its portable twin
// in sampler_kernels.cc computes (tests/unit/ordered_sum_test.cc holds them
// equal); AVX-512 has only the two passes that dominate a token.
#ifndef ORCD_HOST_SAMPLING_SAMPLER_SIMD_H_
#define ORCD_HOST_SAMPLING_SAMPLER_SIMD_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "host/sampling/sampler_kernels.h"

namespace orcd::sampling {

// glibc's expf since 2.27 (ARM optimized-routines, MIT): exp(x) =
// 2^(k/32) * 2^(r/32) with a cubic in r, in double. glibc's x86-64 build
// for CPUs with FMA (the one it picks on them) fuses its steps as the vector
// versions do; each version's ExpMatchesLibm checks the bits on this machine.
inline constexpr uint64_t kExp2Table[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540};
inline constexpr double kInvLn2x32 = std::bit_cast<double>(uint64_t{0x40471547652b82fe});
inline constexpr double kShift = std::bit_cast<double>(uint64_t{0x4338000000000000});  // 1.5 * 2^52
inline constexpr double kPoly0 = std::bit_cast<double>(uint64_t{0x3ebc6af84b912394});
inline constexpr double kPoly1 = std::bit_cast<double>(uint64_t{0x3f2ebfce50fac4f3});
inline constexpr double kPoly2 = std::bit_cast<double>(uint64_t{0x3f962e42ff0c52d6});

// Whether `exp8` (eight exps, x to y) gives std::exp's bits on 65,536
// inputs spread over every binade of [-39, 0]. (An exhaustive run over all
// 1.1e9 floats there matched glibc 2.36's expf bit for bit.)
bool ExpMatchesLibm(void (*exp8)(const float* x, float* y));

// The portable pieces the vector kernels finish with.
float ScalePortable(std::span<const float> logits, float inv_t, float* out);
float MaxPortable(std::span<const float> values);
size_t ScanPortable(std::span<const float> values, size_t begin, float threshold, size_t capacity,
                    std::vector<int32_t>& ids);
void CollectPortable(std::span<const float> values, size_t begin, Range range,
                     std::vector<int32_t>& ids);

#if defined(__x86_64__)
namespace avx2 {
// AVX2 and FMA here, and the vector exp gives std::exp's bits.
bool Usable();
float Scale(std::span<const float> logits, float inv_t, float* out);
float Max(std::span<const float> values);
size_t Scan(std::span<const float> values, size_t begin, float threshold, size_t capacity,
            std::vector<int32_t>& ids);
GridSums ExpTail(std::span<const float> values, float below, float max, double inv_u, float* e);
GridSums GridTail(std::span<const float> values, double inv_u);
ProbSums ProbTail(std::span<const float> e, std::span<const float> values, Range range,
                  double sum_lo, double sum_hi, double floor);
RangeMass MassIn(std::span<const float> e, std::span<const float> values, Range range);
void Collect(std::span<const float> values, Range range, std::vector<int32_t>& ids);
}  // namespace avx2

namespace avx512 {
// AVX-512 F/VL/DQ and FMA here, and the vector exp gives std::exp's bits.
bool Usable();
GridSums ExpTail(std::span<const float> values, float below, float max, double inv_u, float* e);
ProbSums ProbTail(std::span<const float> e, std::span<const float> values, Range range,
                  double sum_lo, double sum_hi, double floor);
}  // namespace avx512
#endif

}  // namespace orcd::sampling

#endif  // ORCD_HOST_SAMPLING_SAMPLER_SIMD_H_
