#include "host/sampling/sampler_kernels.h"

#include <bit>
#include <cmath>
#include <limits>

#include "host/sampling/sampler_simd.h"

namespace orcd::sampling {

// ---- portable ---------------------------------------------------------------

float MaxPortable(std::span<const float> values) {
  float max = -std::numeric_limits<float>::infinity();
  bool nan = false;
  for (float v : values) {
    nan |= std::isnan(v);
    max = v > max ? v : max;
  }
  return nan ? std::numeric_limits<float>::quiet_NaN() : max;
}

float ScalePortable(std::span<const float> logits, float inv_t, float* out) {
  for (size_t i = 0; i < logits.size(); ++i) out[i] = logits[i] * inv_t;
  return MaxPortable({out, logits.size()});
}

size_t ScanPortable(std::span<const float> values, size_t begin, float threshold, size_t capacity,
                    std::vector<int32_t>& ids) {
  size_t i = begin;
  while (i < values.size() && ids.size() < capacity) {
    if (values[i] >= threshold) ids.push_back(static_cast<int32_t>(i));
    ++i;
  }
  return i;
}

GridSums ExpTailPortable(std::span<const float> values, float below, float max, double inv_u,
                         float* e) {
  GridSums grid;
  for (size_t i = 0; i < values.size(); ++i) {
    float x = 0.0f;
    if (values[i] < below) {
      const float d = values[i] - max;
      if (d >= kNegligibleLogit) x = std::exp(d);
    }
    e[i] = x;
    if (x > 0.0f) grid.Add(x * inv_u);
  }
  return grid;
}

GridSums GridTailPortable(std::span<const float> values, double inv_u) {
  GridSums grid{.two_grids = true};
  for (float x : values)
    if (x > 0.0f) grid.Add(x * inv_u);
  return grid;
}

ProbSums ProbTailPortable(std::span<const float> e, std::span<const float> values, Range range,
                          double sum_lo, double sum_hi, double floor) {
  ProbSums out;
  for (size_t i = 0; i < e.size(); ++i) {
    const float x = e[i];
    if (x == 0.0f || !(values[i] >= range.lo && values[i] < range.hi)) continue;
    const auto p_lo = static_cast<float>(x / sum_hi);
    if (p_lo >= floor) out.lo += p_lo;
    const auto p_hi = static_cast<float>(x / sum_lo);
    if (p_hi >= floor) {
      out.hi += p_hi;
      ++out.count;
    }
  }
  return out;
}

RangeMass MassInPortable(std::span<const float> e, std::span<const float> values, Range range) {
  RangeMass out;
  for (size_t i = 0; i < e.size(); ++i) {
    if (!(values[i] >= range.lo && values[i] < range.hi)) continue;
    out.e_sum += e[i];
    ++out.count;
  }
  return out;
}

void CollectPortable(std::span<const float> values, size_t begin, Range range,
                     std::vector<int32_t>& ids) {
  for (size_t i = begin; i < values.size(); ++i)
    if (values[i] >= range.lo && values[i] < range.hi) ids.push_back(static_cast<int32_t>(i));
}

bool ExpMatchesLibm(void (*exp8)(const float* x, float* y)) {
  constexpr uint32_t kFirst = 0x80000000u;  // -0
  constexpr uint32_t kLast = std::bit_cast<uint32_t>(kNegligibleLogit);
  constexpr uint32_t kStep = (kLast - kFirst) / 65536;
  for (uint32_t bits = kFirst; bits <= kLast - 8 * kStep; bits += 8 * kStep) {
    float x[8], y[8];
    for (uint32_t k = 0; k < 8; ++k) x[k] = std::bit_cast<float>(bits + k * kStep + k);
    exp8(x, y);
    for (int k = 0; k < 8; ++k) {
      if (std::bit_cast<uint32_t>(y[k]) != std::bit_cast<uint32_t>(std::exp(x[k]))) return false;
    }
  }
  return true;
}

// ---- dispatch -----------------------------------------------------------------

namespace {

enum class KernelSet { kPortable, kAvx2, kAvx512 };

KernelSet Chosen() {
#if defined(__x86_64__)
  static const KernelSet chosen = avx2::Usable()
                                      ? (avx512::Usable() ? KernelSet::kAvx512 : KernelSet::kAvx2)
                                      : KernelSet::kPortable;
  return chosen;
#else
  return KernelSet::kPortable;
#endif
}

}  // namespace

bool VectorKernelsInUse() { return Chosen() != KernelSet::kPortable; }

const char* KernelSetName() {
  switch (Chosen()) {
    case KernelSet::kAvx512:
      return "avx512";
    case KernelSet::kAvx2:
      return "avx2";
    case KernelSet::kPortable:
      break;
  }
  return "portable";
}

#if defined(__x86_64__)
#define ORCD_DISPATCH(avx2_call, portable_call) \
  return Chosen() != KernelSet::kPortable ? avx2_call : portable_call
#define ORCD_DISPATCH3(avx512_call, avx2_call, portable_call) \
  return Chosen() == KernelSet::kAvx512 ? avx512_call         \
         : Chosen() == KernelSet::kAvx2 ? avx2_call           \
                                        : portable_call
#else
#define ORCD_DISPATCH(avx2_call, portable_call) return portable_call
#define ORCD_DISPATCH3(avx512_call, avx2_call, portable_call) return portable_call
#endif

float ScaleInto(std::span<const float> logits, float inv_t, float* out) {
  ORCD_DISPATCH(avx2::Scale(logits, inv_t, out), ScalePortable(logits, inv_t, out));
}

float MaxOf(std::span<const float> values) {
  ORCD_DISPATCH(avx2::Max(values), MaxPortable(values));
}

size_t ScanAtLeast(std::span<const float> values, size_t begin, float threshold, size_t capacity,
                   std::vector<int32_t>& ids) {
  ORCD_DISPATCH(avx2::Scan(values, begin, threshold, capacity, ids),
                ScanPortable(values, begin, threshold, capacity, ids));
}

GridSums ExpTail(std::span<const float> values, float below, float max, double inv_u, float* e) {
  ORCD_DISPATCH3(avx512::ExpTail(values, below, max, inv_u, e),
                 avx2::ExpTail(values, below, max, inv_u, e),
                 ExpTailPortable(values, below, max, inv_u, e));
}

GridSums GridTail(std::span<const float> values, double inv_u) {
  ORCD_DISPATCH(avx2::GridTail(values, inv_u), GridTailPortable(values, inv_u));
}

ProbSums ProbTailSums(std::span<const float> e, std::span<const float> values, Range range,
                      double sum_lo, double sum_hi, double floor) {
  ORCD_DISPATCH3(avx512::ProbTail(e, values, range, sum_lo, sum_hi, floor),
                 avx2::ProbTail(e, values, range, sum_lo, sum_hi, floor),
                 ProbTailPortable(e, values, range, sum_lo, sum_hi, floor));
}

RangeMass MassIn(std::span<const float> e, std::span<const float> values, Range range) {
  ORCD_DISPATCH(avx2::MassIn(e, values, range), MassInPortable(e, values, range));
}

void CollectIn(std::span<const float> values, Range range, std::vector<int32_t>& ids) {
  ORCD_DISPATCH(avx2::Collect(values, range, ids), CollectPortable(values, 0, range, ids));
}

#undef ORCD_DISPATCH
#undef ORCD_DISPATCH3

}  // namespace orcd::sampling
