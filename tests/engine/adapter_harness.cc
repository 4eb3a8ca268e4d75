#include "adapter_harness.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/cuda/cuda_adapters.h"
#include "orcd/cpp/half.h"

namespace orcd::testing {

using engine::BoundInstruction;
using engine::RegisterSlot;

struct AdapterHarness::Backend {
  BoundInstruction insn;
  std::unique_ptr<engine::KvCache> kv;
  std::vector<float> arena;  // CPU only
  std::vector<float> workspace;
};

namespace {

size_t Elements(const std::vector<int64_t>& ne) {
  size_t n = 1;
  for (int64_t d : ne) n *= static_cast<size_t>(d);
  return n;
}

}  // namespace

std::vector<float> RandomValues(size_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

double MaxRelDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double scale = 1.0, diff = 0.0;
  for (size_t i = 0; i < b.size(); ++i) {
    scale = std::max(scale, static_cast<double>(std::abs(b[i])));
    const double d = std::abs(static_cast<double>(a[i]) - b[i]);
    if (std::isnan(d)) return INFINITY;
    diff = std::max(diff, d);
  }
  return diff / scale;
}

AdapterHarness::AdapterHarness(std::shared_ptr<engine::cuda::DeviceRuntime> runtime, OpSpec spec)
    : spec_(std::move(spec)), runtime_(std::move(runtime)) {
  // Weights: bytes in their type, shared by both backends (device copy below).
  for (const HostWeight& w : spec_.weights) {
    const size_t n = Elements(w.ne);
    if (w.values.size() != n) throw std::invalid_argument("weight values do not match ne");
    std::vector<uint8_t> bytes(n * (w.type == 1 ? 2 : 4));
    for (size_t i = 0; i < n; ++i) {
      if (w.type == 1) {
        const uint16_t h = f32_to_fp16(w.values[i]);
        std::memcpy(bytes.data() + 2 * i, &h, 2);
      } else {
        std::memcpy(bytes.data() + 4 * i, &w.values[i], 4);
      }
    }
    weight_bytes_.push_back(std::move(bytes));
  }
  device_ = std::make_unique<engine::cuda::CudaBackend>(runtime_);
  for (size_t i = 0; i < spec_.weights.size(); ++i) {
    const HostWeight& w = spec_.weights[i];
    engine::WeightRef r;
    r.name = "w" + std::to_string(i);
    r.type = w.type;
    r.n_dims = static_cast<uint32_t>(w.ne.size());
    for (size_t d = 0; d < w.ne.size(); ++d) r.ne[d] = w.ne[d];
    r.data = weight_bytes_[i].data();
    r.n_bytes = weight_bytes_[i].size();
    r.row_bytes = static_cast<uint64_t>(w.ne[0]) * (w.type == 1 ? 2 : 4);
    weight_refs_.push_back(r);
  }

  // Registers: inputs then outputs, each row_capacity rows, in one arena.
  BoundInstruction insn;
  insn.opcode = spec_.opcode;
  insn.params = spec_.params;
  insn.label = "test " + engine::OpcodeName(spec_.opcode);
  int64_t offset = 0;
  for (int64_t w : spec_.in_widths) {
    RegisterSlot s;
    s.kind = w == 0 ? RegisterSlot::Kind::kTokens : RegisterSlot::Kind::kArena;
    s.offset = offset;
    s.width = w;
    insn.in.push_back(s);
    offset += w * spec_.row_capacity;
  }
  for (int64_t w : spec_.out_widths) {
    insn.out.push_back({RegisterSlot::Kind::kArena, offset, w});
    offset += w * spec_.row_capacity;
  }
  for (const engine::WeightRef& r : weight_refs_) insn.weights.push_back(&r);

  engine::BoundPhase& phase = plan_.phase(engine::Phase::kPrefill);
  phase.arena_floats = offset;
  phase.row_capacity = spec_.row_capacity;
  phase.vocab = 1;
  phase.instructions.push_back(insn);
  plan_.phase(engine::Phase::kDecode) = phase;

  const engine::AdapterTable cpu_table = engine::cpu::MakeCpuAdapterTable();
  const engine::AdapterTable cuda_table = engine::cuda::MakeCudaAdapterTable();
  cpu_ = std::make_unique<Backend>();
  cpu_->insn = insn;
  cpu_->insn.run = cpu_table.Find(spec_.opcode);
  cpu_->arena.assign(static_cast<size_t>(offset), NAN);
  cpu_->workspace.assign(
      static_cast<size_t>(engine::cpu::CpuWorkspaceFloats(plan_, spec_.context_length)), 0.0f);
  cpu_->kv =
      std::make_unique<engine::KvCache>(spec_.kv_states, spec_.context_length, spec_.kv_type);

  // Device weights: one buffer per weight (the engine uses one for the file).
  for (size_t i = 0; i < weight_refs_.size(); ++i) {
    void* p = runtime_->Allocate(weight_bytes_[i].size());
    runtime_->CopyToDevice(p, weight_bytes_[i].data(), weight_bytes_[i].size());
    weight_refs_[i].device_data = static_cast<const uint8_t*>(p);
  }
  device_->Prepare(plan_);
  cuda_ = std::make_unique<Backend>();
  cuda_->insn = insn;
  cuda_->insn.run = cuda_table.Find(spec_.opcode);
  cuda_->kv = std::make_unique<engine::KvCache>(spec_.kv_states, spec_.context_length,
                                                spec_.kv_type, device_.get());
  if (spec_.opcode == ORCD_OP_ATTENTION) {
    const auto p = insn.ParamsAs<orcd_op_attention_params>();
    cpu_->insn.kv_index = cpu_->kv->Find(p.kv_layer);
    cuda_->insn.kv_index = cuda_->kv->Find(p.kv_layer);
  }
  if (!cpu_->insn.run || !cuda_->insn.run) throw std::invalid_argument("no adapter for the op");
}

AdapterHarness::~AdapterHarness() {
  cuda_.reset();  // its KV cache frees through device_
  for (const engine::WeightRef& r : weight_refs_)
    runtime_->Free(const_cast<uint8_t*>(r.device_data));
}

OpOutputs AdapterHarness::Run(int64_t pos0, int64_t n,
                              const std::vector<std::vector<float>>& inputs,
                              const std::vector<int32_t>& tokens) {
  OpOutputs out;
  for (int side = 0; side < 2; ++side) {
    const bool on_cuda = side == 1;
    Backend& b = on_cuda ? *cuda_ : *cpu_;
    engine::ExecContext ctx;
    ctx.pool = &pool_;
    ctx.tokens = tokens.data();
    ctx.n_tokens = n;
    ctx.pos0 = pos0;
    ctx.kv = b.kv.get();
    ctx.workspace = b.workspace.data();
    ctx.workspace_floats = static_cast<int64_t>(b.workspace.size());
    ctx.arena = on_cuda ? device_->arena() : b.arena.data();
    if (on_cuda) {
      ctx.device = device_.get();
      device_->BeginRun(tokens.empty() ? std::vector<int32_t>(static_cast<size_t>(n), 0) : tokens,
                        pos0);
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      float* dst = ctx.Reg(b.insn.in[i]);
      const size_t bytes = inputs[i].size() * sizeof(float);
      if (on_cuda) {
        runtime_->CopyToDevice(dst, inputs[i].data(), bytes);
      } else {
        std::memcpy(dst, inputs[i].data(), bytes);
      }
    }
    b.insn.run(b.insn, ctx);
    auto& result = on_cuda ? out.cuda : out.cpu;
    for (size_t o = 0; o < b.insn.out.size(); ++o) {
      std::vector<float> v(static_cast<size_t>(n * b.insn.out[o].width));
      const float* src = ctx.Out(b.insn, o);
      if (on_cuda) {
        runtime_->CopyToHost(v.data(), src, v.size() * sizeof(float));
      } else {
        std::memcpy(v.data(), src, v.size() * sizeof(float));
      }
      result.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace orcd::testing
