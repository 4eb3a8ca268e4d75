#include "host/engine/cuda/cuda_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/engine/lowered_ops.h"
#include "host/sampling/token_logprobs.h"

namespace orcd::engine::cuda {

static_assert(kRowLogprobsMax == kMaxTopLogprobs, "a row reports every top_logprobs asked");
namespace {

struct MoeShape {
  int64_t pairs = 0;  // (token, pick) pairs of the largest MOE run
  int64_t f = 0, d = 0;
  int64_t grouped_pairs = 0;  // of those that group pairs by expert (prefill)
};

MoeShape LargestMoe(const BoundPlan& plan) {
  MoeShape m;
  for (const BoundPhase& phase : plan.phases) {
    for (const BoundInstruction& insn : phase.instructions) {
      if (!IsMoe(insn.opcode)) continue;
      const auto p = insn.ParamsAs<orcd_op_moe_params>();
      const int64_t pairs = phase.row_capacity * static_cast<int64_t>(p.n_expert_used);
      m.pairs = std::max(m.pairs, pairs);
      if (phase.row_capacity >= kTensorCorePrefillTokens) {
        m.grouped_pairs = std::max(m.grouped_pairs, pairs);
      }
      m.f = std::max(m.f, insn.weights[0]->ne[1]);
      m.d = std::max(m.d, insn.out[0].width);
    }
  }
  return m;
}

// Routing, gate, up, down; then the grouped rows and the order (3 ints a pair).
uint64_t MoeFloats(const MoeShape& m) {
  return static_cast<uint64_t>(m.pairs * (2 * m.f + m.d + 2) + m.grouped_pairs * (m.d + 3));
}

// Calls f(opcode, w) for every weight a matmul of `phase` multiplies: a
// MATMUL's (also as the lowering renamed it, MATMUL_SHARED_INPUT: nearly
// every prefill MATMUL; missing it sized the f16 operand for the narrowest
// weights, and the widest, FFN down, fell back to the plugin's kernel at full
// passes: 27 % of Qwen2.5-0.5B's prefill on an H100) or LOGITS's, and a MOE's
// three expert weights when it groups its pairs by expert
// (kTensorCorePrefillTokens tokens or more: one matmul per expert).
template <typename F>
void ForEachMatmulWeight(const BoundPhase& phase, F&& f) {
  for (const BoundInstruction& insn : phase.instructions) {
    if (insn.opcode == ORCD_OP_MATMUL || insn.opcode == kOpMatmulSharedInput) {
      f(ORCD_OP_MATMUL, *insn.weights[0]);
    } else if (insn.opcode == ORCD_OP_LOGITS) {
      f(insn.opcode, *insn.weights[0]);
    } else if (IsMoe(insn.opcode) && phase.row_capacity >= kTensorCorePrefillTokens) {
      for (size_t i = 0; i < 3; ++i) f(ORCD_OP_MATMUL, *insn.weights[i]);
    }
  }
}

// Whether a quantized weight's matmul in `phase` may take the tensor-core
// prefill (DequantizedGemm).
bool TensorCorePrefill(const BoundPhase& phase, uint32_t opcode, const WeightRef& w) {
  return opcode == ORCD_OP_MATMUL && phase.row_capacity >= kTensorCorePrefillTokens &&
         !DenseTypeSupported(w.type);
}

// Halves of the largest activation block a 16-bit GEMM converts: rows x the
// weight's columns, over the MATMUL / LOGITS instructions with F16 / BF16
// weights (and quantized ones when the f16 prefill is on).
uint64_t GemmOperandHalves(const BoundPlan& plan, bool f16_prefill) {
  uint64_t most = 0;
  for (const BoundPhase& phase : plan.phases) {
    ForEachMatmulWeight(phase, [&](uint32_t opcode, const WeightRef& w) {
      const bool half = w.type == 1 || w.type == 30;  // F16, BF16
      if (!half && !(f16_prefill && TensorCorePrefill(phase, opcode, w))) return;
      most = std::max(most, static_cast<uint64_t>(phase.row_capacity * w.cols()));
    });
  }
  return most;
}

// The f16 prefill's chunk: the largest such weight, capped at 16 Mi values
// (32 MiB of f16; 64 MiB more of f32 where PrefillNeedsF32), at least one
// row of the widest; 0 when no matmul takes that path.
constexpr int64_t kPrefillChunkElements = int64_t{16} << 20;
int64_t PrefillChunkElements(const BoundPlan& plan, bool f16_prefill) {
  if (!f16_prefill) return 0;
  int64_t widest = 0, largest = 0;
  for (const BoundPhase& phase : plan.phases) {
    ForEachMatmulWeight(phase, [&](uint32_t opcode, const WeightRef& w) {
      if (!TensorCorePrefill(phase, opcode, w)) return;
      widest = std::max(widest, w.cols());
      largest = std::max(largest, w.cols() * w.rows());
    });
  }
  return std::max(widest, std::min(largest, kPrefillChunkElements));
}

// Whether some weight that takes the tensor-core prefill lacks its plugin's
// get_rows_f16, so that the chunk needs its f32 half (PrefillScratch).
bool PrefillNeedsF32(const BoundPlan& plan) {
  bool needs = false;
  for (const BoundPhase& phase : plan.phases) {
    ForEachMatmulWeight(phase, [&](uint32_t opcode, const WeightRef& w) {
      needs = needs || (TensorCorePrefill(phase, opcode, w) && !ServesGetRowsF16(w));
    });
  }
  return needs;
}

// PrefillScratch's layout for `elements`: f16 values, f32 ones where
// PrefillNeedsF32, then a row id per row of the narrowest (32-column)
// weight; offsets 256-byte aligned.
struct PrefillLayout {
  uint64_t f32 = 0, row_ids = 0, bytes = 0;
};
PrefillLayout LayOutPrefill(int64_t elements, bool f32) {
  const auto align = [](uint64_t bytes) { return (bytes + 255) / 256 * 256; };
  const auto n = static_cast<uint64_t>(elements);
  PrefillLayout l;
  l.f32 = align(n * 2);
  l.row_ids = f32 ? align(l.f32 + n * 4) : l.f32;
  l.bytes = l.row_ids + (n / 32 + 1) * 4;
  return l;
}

// 32-value runs of 8-bit activations one decode step's matvecs need at once:
// a row of the widest matmul input, or every pick's row of a MOE's down
// input, for each of the step's rows (one in a prefill run).
int64_t Q8Runs(const BoundPlan& plan) {
  int64_t runs = 0;
  for (const BoundPhase& phase : plan.phases) {
    const int64_t rows =
        &phase == &plan.phase(Phase::kDecode) ? std::max<int64_t>(phase.row_capacity, 1) : 1;
    for (const BoundInstruction& insn : phase.instructions) {
      if (insn.opcode == ORCD_OP_MATMUL || insn.opcode == kOpMatmulSharedInput ||
          insn.opcode == kOpMatmulGlu || insn.opcode == kOpMatmulMulti ||
          insn.opcode == ORCD_OP_LOGITS) {
        runs = std::max(runs, rows * (insn.weights[0]->cols() / 32));
      } else if (IsMoe(insn.opcode)) {
        const auto p = insn.ParamsAs<orcd_op_moe_params>();
        const WeightRef& gate = *insn.weights[0];
        runs =
            std::max({runs, rows * (gate.cols() / 32), rows * p.n_expert_used * (gate.ne[1] / 32)});
      }
    }
  }
  return runs;
}

// Floats of the split-KV attention's partial results (a decode step): the
// widest ATTENTION's heads x (head_dim + 2) x the most splits a cache may
// take, for each of the step's rows.
int64_t AttentionPartialFloats(const BoundPlan& plan, int64_t context_length) {
  const BoundPhase& decode = plan.phase(Phase::kDecode);
  int64_t floats = 0;
  for (const BoundInstruction& insn : decode.instructions) {
    if (!IsAttention(insn.opcode)) continue;
    const auto p = insn.ParamsAs<orcd_op_attention_params>();
    floats = std::max(floats, static_cast<int64_t>(p.n_head) * (p.head_dim + 2));
  }
  return floats * KvSplits(context_length) * std::max<int64_t>(decode.row_capacity, 1);
}

// The device sampler sorts a power-of-two number of candidates.
int64_t SortPadding(int64_t vocab) {
  int64_t padded = 1;
  while (padded < vocab) padded <<= 1;
  return padded;
}

// Whether a decode step can be recorded as a graph: nothing in it waits for
// the host. Only MOE with a pre-1.2 quant plugin does (it reads the expert
// ids back).
bool DecodeStepRecordable(const BoundPlan& plan) {
  for (const BoundInstruction& insn : plan.phase(Phase::kDecode).instructions) {
    if (!IsMoe(insn.opcode)) continue;
    for (const WeightRef* w : insn.weights) {
      if (w->quant == nullptr || w->quant->cuda == nullptr) continue;
      const orcd_quant_cuda_ops* ops = w->quant->cuda;
      if (!ORCD_HAS_FIELD(ops, orcd_quant_cuda_ops, matvec_ids) || ops->matvec_ids == nullptr) {
        return false;
      }
    }
  }
  return true;
}

int64_t RowCapacity(const BoundPlan& plan) {
  int64_t rows = 1;
  for (const BoundPhase& phase : plan.phases) rows = std::max(rows, phase.row_capacity);
  return rows;
}

// Rows sampled at once at most: a decode step's (a prompt step samples one).
int64_t SampleRowsCapacity(const BoundPlan& plan) {
  return std::max<int64_t>(plan.phase(Phase::kDecode).row_capacity, 1);
}

// The span of the file holding every tensor's data.
std::pair<const uint8_t*, const uint8_t*> DataRange(const WeightTable& weights) {
  const uint8_t* lo = nullptr;
  const uint8_t* hi = nullptr;
  for (const WeightRef& w : weights.weights()) {
    if (w.n_bytes == 0) continue;
    if (lo == nullptr || w.data < lo) lo = w.data;
    if (hi == nullptr || w.data + w.n_bytes > hi) hi = w.data + w.n_bytes;
  }
  return {lo, hi};
}

}  // namespace

CudaBackend::CudaBackend(std::shared_ptr<DeviceRuntime> runtime) : runtime_(std::move(runtime)) {}

CudaBackend::~CudaBackend() {
  for (auto& [p, bytes] : kv_blocks_) runtime_->Free(p);
}

uint64_t CudaBackend::WeightBytes(const WeightTable& weights) {
  const auto [lo, hi] = DataRange(weights);
  return lo ? static_cast<uint64_t>(hi - lo) : 0;
}

uint64_t CudaBackend::ScratchBytes(const BoundPlan& plan) const {
  int64_t arena = 0;
  for (const BoundPhase& phase : plan.phases) arena = std::max(arena, phase.arena_floats);
  const uint64_t vocab = static_cast<uint64_t>(plan.phase(Phase::kDecode).vocab);
  const auto padded = static_cast<uint64_t>(SortPadding(static_cast<int64_t>(vocab)));
  return static_cast<uint64_t>(arena) * 4 + vocab * 4 + MoeFloats(LargestMoe(plan)) * 4 +
         padded * 8 * static_cast<uint64_t>(SampleRowsCapacity(plan)) +
         static_cast<uint64_t>(SampleRowsCapacity(plan)) * sizeof(SampleRow) +
         GemmOperandHalves(plan, f16_prefill_on_) * 2 +
         LayOutPrefill(PrefillChunkElements(plan, f16_prefill_on_), PrefillNeedsF32(plan)).bytes +
         static_cast<uint64_t>(RowCapacity(plan)) * 8 +
         static_cast<uint64_t>(Q8Runs(plan)) * sizeof(orcd_q8_x32) +
         static_cast<uint64_t>(AttentionPartialFloats(plan, kMaxKvSplits * 64)) * 4 +
         sizeof(StepValues) + static_cast<uint64_t>(RowCapacity(plan)) * (sizeof(StepRow) + 4) +
         vocab * 4 * static_cast<uint64_t>(plan.phase(Phase::kDecode).row_capacity - 1);
}

void CudaBackend::CheckFits(uint64_t required, uint64_t headroom) {
  const DeviceMemoryInfo m = runtime_->MemoryInfo();
  if (required + headroom > m.free_bytes) {
    throw Error(ErrorCode::kOutOfMemory,
                "INSUFFICIENT_VRAM: the model needs " + std::to_string(required) +
                    " bytes of device memory (weights, KV cache, scratch) and " +
                    std::to_string(headroom) +
                    " are kept free (device.vram_headroom_mib: cuBLAS, lazily loaded kernels, "
                    "graphs) but " +
                    std::to_string(m.free_bytes) + " of " + std::to_string(m.total_bytes) +
                    " are free on " + runtime_->name() +
                    "; lower the context length or use a smaller model");
  }
}

DeviceBuffer CudaBackend::Make(uint64_t bytes, uint64_t VramUsage::*category) {
  DeviceBuffer b(*runtime_, bytes);
  usage_.*category += bytes;
  return b;
}

void CudaBackend::UploadWeights(WeightTable& weights, uint64_t chunk_bytes,
                                const std::function<void(int)>& progress) {
  const auto [lo, hi] = DataRange(weights);
  const uint64_t total = lo ? static_cast<uint64_t>(hi - lo) : 0;
  chunk_bytes = std::max<uint64_t>(chunk_bytes, 4096);
  if (progress) progress(0);
  weights_ = Make(std::max<uint64_t>(total, 1), &VramUsage::weights);
  // Two pinned buffers: the host fills one while the previous chunk's copy
  // runs; the wait before each copy bounds the staging to two chunks.
  struct Pinned {
    DeviceRuntime* rt;
    void* p;
    ~Pinned() { rt->FreePinned(p); }
  };
  const uint64_t staging = std::min(chunk_bytes, std::max<uint64_t>(total, 1));
  Pinned ring[2] = {{runtime_.get(), runtime_->AllocatePinned(staging)},
                    {runtime_.get(), runtime_->AllocatePinned(staging)}};
  int next_report = 25;
  uint64_t done = 0;
  for (int i = 0; done < total; ++i) {
    const uint64_t n = std::min(staging, total - done);
    std::memcpy(ring[i % 2].p, lo + done, n);
    runtime_->Synchronize();  // the previous chunk's copy, from the other buffer
    runtime_->CopyToDevice(weights_.get<uint8_t>() + done, ring[i % 2].p, n);
    done += n;
    while (progress && next_report < 100 &&
           done * 100 >= total * static_cast<uint64_t>(next_report)) {
      progress(next_report);
      next_report += 25;
    }
  }
  runtime_->Synchronize();
  for (WeightRef& w : weights.weights()) {
    w.device_data =
        w.n_bytes == 0 ? weights_.get<uint8_t>() : weights_.get<uint8_t>() + (w.data - lo);
  }
  if (progress) progress(100);
}

void CudaBackend::Prepare(const BoundPlan& plan, int64_t context_length,
                          int64_t block_table_entries) {
  for (const BoundPhase& phase : plan.phases) {
    for (const BoundInstruction& insn : phase.instructions) {
      if (!IsAttention(insn.opcode)) continue;
      if (insn.ParamsAs<orcd_op_attention_params>().head_dim > static_cast<uint32_t>(kMaxHeadDim)) {
        throw Error(ErrorCode::kUnsupported, insn.label +
                                                 ": the CUDA backend's attention takes "
                                                 "head_dim up to " +
                                                 std::to_string(kMaxHeadDim));
      }
    }
  }
  int64_t arena = 0;
  for (const BoundPhase& phase : plan.phases) arena = std::max(arena, phase.arena_floats);
  row_capacity_ = RowCapacity(plan);
  arena_ = Make(static_cast<uint64_t>(std::max<int64_t>(arena, 1)) * 4, &VramUsage::scratch);
  // A decode step's rows all come back.
  const BoundPhase& decode = plan.phase(Phase::kDecode);
  logits_ =
      Make(static_cast<uint64_t>(decode.vocab * std::max<int64_t>(decode.row_capacity, 1)) * 4,
           &VramUsage::scratch);
  table_capacity_ = std::max<int64_t>(block_table_entries, 1);
  rows_offset_ = sizeof(StepValues) + static_cast<uint64_t>(row_capacity_) * 4;
  rows_offset_ = (rows_offset_ + 7) / 8 * 8;
  tables_offset_ = rows_offset_ + static_cast<uint64_t>(row_capacity_) * sizeof(StepRow);
  const uint64_t step_bytes =
      (tables_offset_ + static_cast<uint64_t>(table_capacity_) * 4 + 7) / 8 * 8;
  step_block_ = Make(step_bytes, &VramUsage::other);
  positions_ = Make(static_cast<uint64_t>(row_capacity_) * 4, &VramUsage::other);
  zero_ids_ = Make(static_cast<uint64_t>(row_capacity_) * 4, &VramUsage::other);
  runtime_->Memset(zero_ids_.get(), 0, zero_ids_.bytes());
  sample_padded_ = SortPadding(plan.phase(Phase::kDecode).vocab);
  sample_rows_capacity_ = SampleRowsCapacity(plan);
  const auto sampled = static_cast<uint64_t>(sample_rows_capacity_);
  sample_keys_ = Make(static_cast<uint64_t>(sample_padded_) * 4 * sampled, &VramUsage::scratch);
  sample_ids_ = Make(static_cast<uint64_t>(sample_padded_) * 4 * sampled, &VramUsage::scratch);
  sample_rows_ = Make(sampled * sizeof(SampleRow), &VramUsage::other);
  penalized_capacity_ = std::max<int64_t>(context_length, 1);
  penalized_ = Make(static_cast<uint64_t>(penalized_capacity_) * 4 * sampled, &VramUsage::other);
  // Rows asking for log-probabilities: their penalized logits before the
  // penalty, and what comes back.
  raw_penalized_ =
      Make(static_cast<uint64_t>(penalized_capacity_) * 4 * sampled, &VramUsage::other);
  row_logprobs_ = Make(sampled * sizeof(RowLogprobs), &VramUsage::other);
  const uint64_t results_bytes = (sampled * 4 + 7) / 8 * 8;
  const uint64_t penalized_bytes =
      (static_cast<uint64_t>(penalized_capacity_) * 4 * sampled + 7) / 8 * 8;
  staging_ = PinnedBuffer(*runtime_, step_bytes + results_bytes + sampled * sizeof(SampleRow) +
                                         penalized_bytes + sampled * sizeof(RowLogprobs));
  staged_result_ = reinterpret_cast<int32_t*>(staging_.get<uint8_t>() + step_bytes);
  staged_sample_rows_ =
      reinterpret_cast<SampleRow*>(staging_.get<uint8_t>() + step_bytes + results_bytes);
  staged_penalized_ = reinterpret_cast<int32_t*>(staged_sample_rows_ + sampled);
  staged_logprobs_ = reinterpret_cast<RowLogprobs*>(reinterpret_cast<uint8_t*>(staged_penalized_) +
                                                    penalized_bytes);
  prefill_ = {};
  if (const int64_t elements = PrefillChunkElements(plan, f16_prefill_on_); elements > 0) {
    const bool f32 = PrefillNeedsF32(plan);
    const PrefillLayout layout = LayOutPrefill(elements, f32);
    prefill_buffer_ = Make(layout.bytes, &VramUsage::scratch);
    auto* base = prefill_buffer_.get<uint8_t>();
    prefill_.elements = elements;
    prefill_.f16 = reinterpret_cast<uint16_t*>(base);
    if (f32) prefill_.f32 = reinterpret_cast<float*>(base + layout.f32);
    prefill_.row_ids = reinterpret_cast<int32_t*>(base + layout.row_ids);
    std::vector<int32_t> ids(static_cast<size_t>(elements / 32 + 1));
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
    runtime_->CopyToDevice(prefill_.row_ids, ids.data(), ids.size() * sizeof(int32_t));
    runtime_->Synchronize();  // `ids` is pageable and about to go
  }
  if (const uint64_t halves = GemmOperandHalves(plan, f16_prefill_on_); halves > 0)
    gemm_operand_ = Make(halves * 2, &VramUsage::scratch);
  decode_graphs_.clear();
  eager_decode_rows_.clear();
  graphs_possible_ = DecodeStepRecordable(plan);
  if (const int64_t floats = AttentionPartialFloats(plan, context_length); floats > 0) {
    attention_partial_ = Make(static_cast<uint64_t>(floats) * 4, &VramUsage::scratch);
  }
  q8_capacity_ = Q8Runs(plan);
  if (q8_capacity_ > 0) {
    q8_ = Make(static_cast<uint64_t>(q8_capacity_) * sizeof(orcd_q8_x32), &VramUsage::scratch);
  }
  const MoeShape m = LargestMoe(plan);
  if (m.pairs > 0) {
    moe_buffer_ = Make(MoeFloats(m) * 4, &VramUsage::scratch);
    auto* f = moe_buffer_.get<float>();
    moe_.weights = f;
    moe_.ids = reinterpret_cast<int32_t*>(f + m.pairs);
    moe_.gate = f + 2 * m.pairs;
    moe_.up = moe_.gate + m.pairs * m.f;
    moe_.down = moe_.up + m.pairs * m.f;
    if (m.grouped_pairs > 0) {
      moe_.grouped = moe_.down + m.pairs * m.d;
      moe_.order = reinterpret_cast<int32_t*>(moe_.grouped + m.grouped_pairs * m.d);
    }
  }
}

float* CudaBackend::logits(size_t floats) {
  if (floats * 4 > logits_.bytes()) {  // a caller asked for more rows than ever before
    decode_graphs_.clear();            // they write to the old buffer
    const uint64_t old = logits_.bytes();
    logits_.Reset();
    usage_.scratch -= old;
    logits_ = Make(floats * 4, &VramUsage::scratch);
  }
  return logits_.get<float>();
}

void CudaBackend::SetStepRows(std::span<const StepRow> rows, std::span<const int32_t> tables) {
  if (static_cast<int64_t>(tables.size()) > table_capacity_) {
    throw Error(ErrorCode::kInternal, "a step's block tables of " + std::to_string(tables.size()) +
                                          " entries exceed the backend's " +
                                          std::to_string(table_capacity_));
  }
  next_rows_.assign(rows.begin(), rows.end());
  next_tables_.assign(tables.begin(), tables.end());
  next_rows_set_ = true;
}

void CudaBackend::BeginRun(std::span<const int32_t> tokens, int64_t pos0) {
  const auto n = static_cast<int64_t>(tokens.size());
  if (n > row_capacity_) {
    next_rows_set_ = false;
    throw Error(ErrorCode::kInternal, "a run of " + std::to_string(tokens.size()) +
                                          " tokens exceeds the backend's " +
                                          std::to_string(row_capacity_) + " rows");
  }
  if (!next_rows_set_) {  // one sequence at pos0, contiguous
    next_rows_.resize(static_cast<size_t>(n));
    for (int64_t t = 0; t < n; ++t) {
      next_rows_[static_cast<size_t>(t)] = {
          static_cast<int32_t>(pos0 + t), 0, static_cast<int32_t>(pos0),
          static_cast<int32_t>(n),        0, 0};
    }
    next_tables_.assign(1, 0);
  }
  next_rows_set_ = false;
  if (static_cast<int64_t>(next_rows_.size()) != n) {
    throw Error(ErrorCode::kInternal, "a run of " + std::to_string(n) + " tokens was given " +
                                          std::to_string(next_rows_.size()) + " step rows");
  }
  q8_source_ = {};
  // A run that ended with a copy to the host waited for the stream; one that
  // did not (a prompt chunk before the next) may still have its copy queued.
  if (staging_in_flight_) runtime_->Synchronize();
  auto* staged = staging_.get<uint8_t>();
  auto* device = step_block_.get<uint8_t>();
  const StepValues step{n, reinterpret_cast<const StepRow*>(device + rows_offset_),
                        reinterpret_cast<const int32_t*>(device + tables_offset_)};
  std::memcpy(staged, &step, sizeof step);
  std::memcpy(staged + sizeof step, tokens.data(), tokens.size_bytes());
  runtime_->CopyToDevice(device, staged, sizeof step + tokens.size_bytes());
  const uint64_t row_bytes = next_rows_.size() * sizeof(StepRow);
  std::memcpy(staged + rows_offset_, next_rows_.data(), row_bytes);
  runtime_->CopyToDevice(device + rows_offset_, staged + rows_offset_, row_bytes);
  const uint64_t table_bytes = next_tables_.size() * 4;
  std::memcpy(staged + tables_offset_, next_tables_.data(), table_bytes);
  runtime_->CopyToDevice(device + tables_offset_, staged + tables_offset_, table_bytes);
  staging_in_flight_ = true;
}

void CudaBackend::FinishRun(float* host_logits, size_t floats) {
  runtime_->CopyToHost(host_logits, logits_.get(), floats * 4);
  staging_in_flight_ = false;
}

int32_t CudaBackend::FinishRunArgmax(int64_t row_offset, int64_t vocab) {
  int32_t* out = positions_.get<int32_t>();  // free once the run's kernels are queued
  // The sampler's key and id buffers (vocabulary-sized) hold the partials.
  const ArgmaxScratch scratch{sample_keys_.get<float>(), sample_ids_.get<int32_t>()};
  runtime_->Check(
      kernels().argmax(logits_.get<float>() + row_offset, vocab, scratch, out, stream()), "argmax");
  return ReadToken(out);
}

int32_t CudaBackend::ReadToken(const int32_t* device_token) {
  runtime_->CopyToHost(staged_result_, device_token, sizeof(int32_t));  // waits for the stream
  staging_in_flight_ = false;
  return *staged_result_;
}

size_t CudaBackend::decode_graph_kernels(int64_t rows) const {
  const auto it = decode_graphs_.find(rows);
  return it == decode_graphs_.end() ? 0 : it->second->kernels();
}

bool CudaBackend::ReplayStep(int64_t decode_rows) {
  const auto it = decode_graphs_.find(decode_rows);
  if (decode_rows <= 0 || it == decode_graphs_.end()) return false;
  it->second->Replay();
  ++graph_replays_;
  return true;
}

bool CudaBackend::CaptureStep(int64_t decode_rows) {
  if (decode_rows <= 0 || !graphs_on()) return false;
  if (eager_decode_rows_.insert(decode_rows).second) return false;  // the warm-up step runs eagerly
  runtime_->BeginCapture();
  capturing_rows_ = decode_rows;
  return true;
}

void CudaBackend::EndCaptureStep() {
  std::unique_ptr<DeviceRuntime::Graph>& graph = decode_graphs_[capturing_rows_];
  graph = runtime_->EndCapture();
  graph->Replay();  // the step itself: nothing ran while recording
  ++graph_replays_;
}

void CudaBackend::AbortCaptureStep() {
  runtime_->AbortCapture();
  decode_graphs_.clear();
  graphs_possible_ = false;
  LogWarn("cuda_graph_off",
          "a decode step could not be recorded as a CUDA graph; "
          "kernels are launched one by one from now on");
}

void* CudaBackend::Allocate(uint64_t bytes) {
  void* p = runtime_->Allocate(bytes);
  try {
    runtime_->Memset(p, 0, bytes);
  } catch (...) {
    runtime_->Free(p);
    throw;
  }
  kv_blocks_.emplace_back(p, bytes);
  usage_.kv_cache += bytes;
  return p;
}

void CudaBackend::Copy(void* dst, const void* src, uint64_t bytes) {
  runtime_->CopyOnDevice(dst, src, bytes);
}

void CudaBackend::Free(void* p) {
  for (auto it = kv_blocks_.begin(); it != kv_blocks_.end(); ++it) {
    if (it->first != p) continue;
    usage_.kv_cache -= it->second;
    runtime_->Free(p);
    kv_blocks_.erase(it);
    return;
  }
}

bool CudaBackend::WeightsResident() {
  return weights_.get() != nullptr && runtime_->IsDeviceMemory(weights_.get());
}

}  // namespace orcd::engine::cuda
