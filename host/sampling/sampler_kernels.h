// The sampler's passes over a whole vocabulary: portable ones, and AVX2 (and
// AVX-512 for the two heaviest) versions chosen at run time (sampler_simd.h;
// the tests hold them equal). They compute exactly what the scalar code
// would: float products and differences, the same exp as std::exp (see
// ExpMatchesLibm), double quotients.
#ifndef ORCD_HOST_SAMPLING_SAMPLER_KERNELS_H_
#define ORCD_HOST_SAMPLING_SAMPLER_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "host/sampling/ordered_sum.h"

namespace orcd::sampling {

// Below this, max-relative logits are negligible: exp(-39) < 2^-55, less than
// half an ulp of every sum the sampler adds them to (each starts at >= the
// largest term, which is 1 or p(top) of a distribution).
inline constexpr float kNegligibleLogit = -39.0f;

// out[i] = logits[i] * inv_t; returns MaxOf(out), from the same pass.
float ScaleInto(std::span<const float> logits, float inv_t, float* out);

// The largest value; NaN when any value is NaN; -inf when empty.
float MaxOf(std::span<const float> values);

// Appends to `ids` the indices from `begin` on whose value is >= threshold,
// until `ids` holds `capacity`; returns the index after the last one looked
// at.
size_t ScanAtLeast(std::span<const float> values, size_t begin, float threshold, size_t capacity,
                   std::vector<int32_t>& ids);

// The tail of the softmax sum: for each i with values[i] < below,
// e[i] = exp(values[i] - max) (0 where negligible), added to the u grid with
// q = e * inv_u; e[i] = 0 for the others.
GridSums ExpTail(std::span<const float> values, float below, float max, double inv_u, float* e);

// Every value > 0 added to both grids with q = value * inv_u.
GridSums GridTail(std::span<const float> values, double inv_u);

// The tail of the probabilities' sum, loosely: for each i with e[i] > 0 and
// values[i] in [lo, hi), p = float(e[i] / sum) for sum = sum_hi (into lo)
// and sum_lo (into hi), added where p >= floor, in some order (so each sum
// is within (count + 16) * 2^-53 of its exact value); `count` of the hi ones.
struct ProbSums {
  double lo = 0;
  double hi = 0;
  int64_t count = 0;
};
struct Range {
  float lo;
  float hi;
};
inline constexpr Range kEverything = {-std::numeric_limits<float>::infinity(),
                                      std::numeric_limits<float>::infinity()};
ProbSums ProbTailSums(std::span<const float> e, std::span<const float> values, Range range,
                      double sum_lo, double sum_hi, double floor);

// Roughly, the sum of e[i] over values[i] in [lo, hi), and how many values
// are in it.
struct RangeMass {
  double e_sum = 0;
  int64_t count = 0;
};
RangeMass MassIn(std::span<const float> e, std::span<const float> values, Range range);

// The indices i with values[i] in [lo, hi), ascending, appended to `ids`.
void CollectIn(std::span<const float> values, Range range, std::vector<int32_t>& ids);

// The portable versions, for the tests.
GridSums ExpTailPortable(std::span<const float> values, float below, float max, double inv_u,
                         float* e);
GridSums GridTailPortable(std::span<const float> values, double inv_u);
ProbSums ProbTailPortable(std::span<const float> e, std::span<const float> values, Range range,
                          double sum_lo, double sum_hi, double floor);
RangeMass MassInPortable(std::span<const float> e, std::span<const float> values, Range range);

// Whether the vector kernels run here: AVX2 and FMA, and a vector exp that
// gives std::exp's bits on this machine's libm (glibc's expf; checked once
// on a sample of inputs).
bool VectorKernelsInUse();
// "avx512" (AVX2 kernels and AVX-512 for the two heaviest), "avx2" or "portable".
const char* KernelSetName();

}  // namespace orcd::sampling

#endif  // ORCD_HOST_SAMPLING_SAMPLER_KERNELS_H_
