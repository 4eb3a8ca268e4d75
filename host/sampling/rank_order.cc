#include "host/sampling/rank_order.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>

#include "host/sampling/sampler_kernels.h"

namespace orcd::sampling {
namespace {

// Keeps the ids whose value is >= the target-th largest (ties included) and
// returns that value.
float Compact(std::span<const float> values, size_t target, std::vector<int32_t>& ids) {
  const auto larger = [&](int32_t a, int32_t b) { return values[a] > values[b]; };
  std::nth_element(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(target - 1), ids.end(),
                   larger);
  const float threshold = values[ids[target - 1]];
  std::erase_if(ids, [&](int32_t id) { return values[id] < threshold; });
  return threshold;
}

// A key whose unsigned order is the rank order of the values: larger first;
// -0 and +0 are equal, as they are to the sampler's comparisons.
uint32_t DescendingKey(float v) {
  uint32_t bits = std::bit_cast<uint32_t>(v + 0.0f);           // -0 + 0 = +0
  bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);  // ascending
  return ~bits;
}

}  // namespace

std::optional<float> SelectTop(std::span<const float> values, size_t target, size_t limit,
                               std::vector<int32_t>& ids) {
  ids.clear();
  const size_t n = values.size();
  if (target >= n) {
    if (n > limit) return std::nullopt;
    for (size_t i = 0; i < n; ++i) ids.push_back(static_cast<int32_t>(i));
    return -std::numeric_limits<float>::infinity();
  }
  target = std::max<size_t>(target, 1);
  // Collect values >= a threshold that rises each time the buffer fills:
  // after the first few fills nearly every value fails one comparison.
  size_t capacity = std::max<size_t>(4 * target, 256);
  float threshold = -std::numeric_limits<float>::infinity();
  size_t i = 0;
  while (i < n) {
    i = ScanAtLeast(values, i, threshold, capacity, ids);
    if (ids.size() >= capacity) {
      threshold = Compact(values, target, ids);
      if (ids.size() > limit) return std::nullopt;
      if (2 * ids.size() > capacity) capacity *= 2;  // many ties at the threshold
    }
  }
  if (ids.size() > target) threshold = Compact(values, target, ids);
  if (ids.size() > limit) return std::nullopt;
  return threshold;
}

void RankOrder(std::span<const float> values, std::vector<Candidate>& out,
               std::vector<uint64_t>& scratch) {
  // LSD radix sort of (key << 32 | id) on the key's 11-, 11- and 10-bit
  // digits: stable, so equal keys keep ascending ids.
  const size_t n = values.size();
  scratch.resize(2 * n);
  uint64_t* a = scratch.data();
  uint64_t* b = a + n;
  constexpr int kDigits = 3;
  constexpr int kBits = 11;
  std::array<std::array<uint32_t, 1 << kBits>, kDigits> counts{};
  for (size_t i = 0; i < n; ++i) {
    const uint32_t key = DescendingKey(values[i]);
    a[i] = (uint64_t{key} << 32) | static_cast<uint32_t>(i);
    for (int d = 0; d < kDigits; ++d) ++counts[d][(key >> (d * kBits)) & ((1u << kBits) - 1)];
  }
  for (int d = 0; d < kDigits; ++d) {
    uint32_t offset = 0;
    for (uint32_t& c : counts[d]) {
      const uint32_t here = c;
      c = offset;
      offset += here;
    }
    const int shift = 32 + d * kBits;
    for (size_t i = 0; i < n; ++i) b[counts[d][(a[i] >> shift) & ((1u << kBits) - 1)]++] = a[i];
    std::swap(a, b);
  }
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const auto id = static_cast<int32_t>(a[i] & 0xffffffffu);
    out[i] = {values[static_cast<size_t>(id)], id};
  }
}

}  // namespace orcd::sampling
