#include "tools/synth/tensor_fill.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "common/cpu_kernel_set.h"
#include "host/common/status.h"
#include "host/engine/cpu/simd.h"
#include "host/gguf/ggml_type_traits.h"

namespace orcd::synth {
namespace {

constexpr int64_t kPoolBlocks = 8192;
constexpr int64_t kSpanBlocks = int64_t{1} << 20;  // blocks per parallel span

int64_t Elements(const TensorSpec& spec) {
  int64_t n = 1;
  for (int64_t d : spec.ne) n *= d;
  return n;
}

const quant::CpuKernels& KernelsFor(uint32_t type) {
  const quant::CpuKernels* k = quant::find_cpu_kernels(static_cast<orcd_ggml_type>(type));
  if (k == nullptr) {
    throw Error(ErrorCode::kUnsupported, "orcd-synth has no quantizer for " + GgmlTypeName(type));
  }
  return *k;
}

// xorshift64*: cheap enough to pick billions of pool blocks.
uint64_t NextRandom(uint64_t& state) {
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545F4914F6CDD1DULL;
}

}  // namespace

std::vector<float> TensorFiller::Draw(int64_t n, Fill fill) {
  std::normal_distribution<float> matrix(0.0f, 0.02f);
  std::normal_distribution<float> norm(1.0f, 0.1f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = fill == Fill::kNorm ? norm(rng_) : matrix(rng_);
  return v;
}

std::vector<uint8_t> TensorFiller::Encode(uint32_t type, const std::vector<float>& values,
                                          int64_t row) {
  const auto n = static_cast<int64_t>(values.size());
  if (type == ORCD_TYPE_F32) {
    std::vector<uint8_t> out(values.size() * sizeof(float));
    std::memcpy(out.data(), values.data(), out.size());
    return out;
  }
  if (type == ORCD_TYPE_F16) {
    std::vector<uint8_t> out(values.size() * sizeof(uint16_t));
    engine::cpu::Simd().f32_to_f16(values.data(), reinterpret_cast<uint16_t*>(out.data()), n);
    return out;
  }
  const quant::CpuKernels& k = KernelsFor(type);
  const int64_t row_bytes = row / k.block_elems * k.block_bytes;
  std::vector<uint8_t> out(static_cast<size_t>(n / row * row_bytes));
  for (int64_t r = 0; r < n / row; ++r) {
    k.portable.quantize_row(values.data() + r * row, out.data() + r * row_bytes, row);
  }
  return out;
}

const TensorFiller::Pool& TensorFiller::PoolFor(uint32_t type) {
  auto it = pools_.find(type);
  if (it != pools_.end()) return it->second;
  const quant::CpuKernels& k = KernelsFor(type);
  Pool pool;
  pool.block_elems = k.block_elems;
  pool.block_bytes = k.block_bytes;
  const std::vector<float> values = Draw(kPoolBlocks * pool.block_elems, Fill::kMatrix);
  pool.blocks = Encode(type, values, pool.block_elems);
  return pools_.emplace(type, std::move(pool)).first->second;
}

std::vector<uint8_t> TensorFiller::Generate(const TensorSpec& spec) {
  const int64_t n = Elements(spec);
  const int64_t row = spec.ne[0];
  const bool plain = spec.type == ORCD_TYPE_F32 || spec.type == ORCD_TYPE_F16;
  if (plain || n <= kExactElements) return Encode(spec.type, Draw(n, spec.fill), row);

  const Pool& pool = PoolFor(spec.type);
  const int64_t n_blocks = n / pool.block_elems;
  std::vector<uint8_t> out(static_cast<size_t>(n_blocks * pool.block_bytes));
  // Fixed spans, each with its own generator seeded from one draw: the bytes
  // do not depend on how many threads fill them (gpt-oss-20b: ~12 GB).
  const uint64_t seed = rng_();
  const int64_t n_spans = (n_blocks + kSpanBlocks - 1) / kSpanBlocks;
  std::atomic<int64_t> next{0};
  auto fill_spans = [&] {
    for (int64_t span = next++; span < n_spans; span = next++) {
      uint64_t state = (seed ^ (static_cast<uint64_t>(span) * 0x9E3779B97F4A7C15ULL)) | 1;
      const int64_t end = std::min(n_blocks, (span + 1) * kSpanBlocks);
      for (int64_t b = span * kSpanBlocks; b < end; ++b) {
        const auto pick = static_cast<int64_t>(NextRandom(state) % kPoolBlocks);
        std::memcpy(out.data() + b * pool.block_bytes, pool.blocks.data() + pick * pool.block_bytes,
                    static_cast<size_t>(pool.block_bytes));
      }
    }
  };
  const int64_t n_threads =
      std::min<int64_t>(n_spans, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> helpers;
  for (int64_t i = 1; i < n_threads; ++i) helpers.emplace_back(fill_spans);
  fill_spans();
  for (std::thread& t : helpers) t.join();
  return out;
}

}  // namespace orcd::synth
