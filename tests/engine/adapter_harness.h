// Runs one macro-op instruction through the CPU adapter and through the CUDA
// adapter on a device runtime (the emulated device in CI, the GPU in
// tests/gpu), on the same inputs, weights and KV history, and returns both
// backends' outputs for comparison.
#ifndef ORCD_TESTS_ENGINE_ADAPTER_HARNESS_H_
#define ORCD_TESTS_ENGINE_ADAPTER_HARNESS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "host/engine/bound_plan.h"
#include "host/engine/cuda/cuda_backend.h"
#include "host/engine/cuda/device_runtime.h"
#include "host/engine/kv_cache.h"
#include "host/engine/thread_pool.h"

namespace orcd::testing {

// A host-typed weight (F32 = 0, F16 = 1) with its values.
struct HostWeight {
  uint32_t type = 0;
  std::vector<int64_t> ne;    // ggml order
  std::vector<float> values;  // ne[0] * ne[1] * ... values, rounded to the type
};

struct OpSpec {
  engine::Opcode opcode = 0;
  std::vector<int64_t> in_widths;  // per input register (ORCD_REG_TOKENS: width 0)
  std::vector<int64_t> out_widths;
  std::vector<HostWeight> weights;
  std::vector<uint8_t> params;
  std::vector<engine::KvStateDesc> kv_states;  // ATTENTION: one state
  engine::KvType kv_type = engine::KvType::kF16;
  int64_t row_capacity = 32;
  int64_t context_length = 64;
};

struct OpOutputs {
  std::vector<std::vector<float>> cpu, cuda;  // per output register: [n][width]
};

class AdapterHarness {
 public:
  AdapterHarness(std::shared_ptr<engine::cuda::DeviceRuntime> runtime, OpSpec spec);
  ~AdapterHarness();

  // One run of `tokens.size()` tokens (or `n` when the op reads no tokens) at
  // positions pos0.. on both backends. inputs[i] is [n][in_widths[i]].
  OpOutputs Run(int64_t pos0, int64_t n, const std::vector<std::vector<float>>& inputs,
                const std::vector<int32_t>& tokens = {});

 private:
  struct Backend;
  OpSpec spec_;
  std::vector<std::vector<uint8_t>> weight_bytes_;
  std::vector<engine::WeightRef> weight_refs_;
  std::unique_ptr<Backend> cpu_, cuda_;
  engine::BoundPlan plan_;
  std::shared_ptr<engine::cuda::DeviceRuntime> runtime_;
  std::unique_ptr<engine::cuda::CudaBackend> device_;
  engine::ThreadPool pool_{1};
};

// Values rounded like `type` would store them (F16: to half precision).
std::vector<float> RandomValues(size_t n, uint32_t seed, float scale = 1.0f);
template <class P>
std::vector<uint8_t> ParamBytes(const P& p) {
  const auto* b = reinterpret_cast<const uint8_t*>(&p);
  return std::vector<uint8_t>(b, b + sizeof p);
}

// Largest |a - b| relative to max(1, max |b|).
double MaxRelDiff(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace orcd::testing

#endif  // ORCD_TESTS_ENGINE_ADAPTER_HARNESS_H_
