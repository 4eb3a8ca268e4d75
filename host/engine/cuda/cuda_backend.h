// The CUDA backend's device state for one loaded model: the weights (the
// GGUF's tensor data as one allocation, so every offset stays valid), the KV
// cache's memory, the register arena, the logits, the per-step values and the
// MoE scratch. It checks free VRAM before allocating anything, uploads the
// weights in bounded chunks through a pinned staging pair, and accounts the
// bytes it holds per category.
#ifndef ORCD_HOST_ENGINE_CUDA_CUDA_BACKEND_H_
#define ORCD_HOST_ENGINE_CUDA_CUDA_BACKEND_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include "host/engine/bound_plan.h"
#include "host/engine/cuda/device_buffer.h"
#include "host/engine/cuda/device_runtime.h"
#include "host/engine/device_execution.h"
#include "host/engine/kv_cache.h"
#include "host/engine/weight_table.h"

namespace orcd::engine::cuda {

struct VramUsage {
  uint64_t weights = 0;
  uint64_t kv_cache = 0;
  uint64_t scratch = 0;  // arena, logits, MoE scratch
  uint64_t other = 0;    // step values, token ids
  uint64_t total() const { return weights + kv_cache + scratch + other; }
};

// Device scratch of one MOE instruction's run: ids and weights of the picks,
// gate/up/down outputs of every (token, pick).
struct MoeScratch {
  int32_t* ids = nullptr;
  float* weights = nullptr;
  float* gate = nullptr;
  float* up = nullptr;
  float* down = nullptr;
  // Prefill's pairs grouped by expert (RunMoe): each pair's input row, then
  // its down output, in expert order; and the order itself (token and expert
  // of each grouped row, grouped row of each pair). Null when no MOE runs
  // kTensorCorePrefillTokens tokens or more.
  float* grouped = nullptr;
  int32_t* order = nullptr;
};

// Scratch of the tensor-core prefill (DequantizedGemm): a chunk of a
// quantized weight's rows dequantized to f16, and row ids 0, 1, ... for the
// plugins' get_rows. The f32 chunk is there only for a weight whose plugin
// lacks get_rows_f16 (before ABI 1.8: get_rows to f32, then to f16); null
// otherwise (16 Mi values: 64 MiB of VRAM the KV pool gets instead).
struct PrefillScratch {
  int64_t elements = 0;  // per chunk; 0 = the f16 prefill is off
  float* f32 = nullptr;
  uint16_t* f16 = nullptr;
  int32_t* row_ids = nullptr;
};

// Whether w's plugin dequantizes rows straight to f16 (ABI 1.8 get_rows_f16).
bool ServesGetRowsF16(const WeightRef& w);

// Rows a phase must hold for its quantized weights' matmuls to take the
// tensor-core path (below, the plugin's tiled kernel). Every prompt chunk of
// such a phase takes it, however few its tokens: a row's arithmetic must not
// depend on how its prompt was chunked (prefix caching maps blocks a cold run
// computed). Unmeasured: a GPU decides the best value.
constexpr int64_t kTensorCorePrefillTokens = 16;

class CudaBackend : public DeviceExecution, public KvMemory {
 public:
  explicit CudaBackend(std::shared_ptr<DeviceRuntime> runtime);
  ~CudaBackend() override;

  // Bytes the model needs on the device besides the KV cache.
  static uint64_t WeightBytes(const WeightTable& weights);
  uint64_t ScratchBytes(const BoundPlan& plan) const;
  // Throws kOutOfMemory ("INSUFFICIENT_VRAM": required and available bytes)
  // unless `required` + `headroom` bytes are free. Allocates nothing.
  void CheckFits(uint64_t required, uint64_t headroom);
  // Copies every tensor's data to the device in chunks of `chunk_bytes` and
  // points each WeightRef::device_data at its copy. `progress(percent)` at 0,
  // 25, 50, 75 and 100 % of the bytes.
  void UploadWeights(WeightTable& weights, uint64_t chunk_bytes,
                     const std::function<void(int)>& progress);
  // Arena, logits, step values, token ids, MoE and sampler scratch for
  // `plan`; the sampler remembers up to `context_length` generated ids; a
  // step's block tables hold up to `block_table_entries` blocks in all.
  void Prepare(const BoundPlan& plan, int64_t context_length = 1, int64_t block_table_entries = 1);
  // Where the next run's rows sit (their positions, sequences and block
  // tables; StepRow), consumed by that run's BeginRun. Without it a run is
  // one sequence at pos0 in the cache's contiguous layout (kernel tests).
  void SetStepRows(std::span<const StepRow> rows, std::span<const int32_t> tables);

  DeviceRuntime& runtime() { return *runtime_; }
  const OpKernels& kernels() const { return runtime_->kernels(); }
  void* stream() const { return runtime_->stream(); }
  const StepValues* step() const { return step_block_.get<StepValues>(); }
  const int32_t* tokens() const {
    return reinterpret_cast<const int32_t*>(step_block_.get<uint8_t>() + sizeof(StepValues));
  }
  int32_t* position_ids() const { return positions_.get<int32_t>(); }
  // Zeros, one per row: "expert 0" of every token of a matvec_ids call.
  const int32_t* zero_ids() const { return zero_ids_.get<int32_t>(); }
  // Room for the largest f16/bf16 copy of a GEMM's activations.
  uint16_t* gemm_operand() const { return gemm_operand_.get<uint16_t>(); }
  uint64_t gemm_operand_bytes() const { return gemm_operand_.bytes(); }
  const MoeScratch& moe() const { return moe_; }
  const PrefillScratch& prefill_scratch() const { return prefill_; }
  // Quantized weights' prefill on tensor cores (default on; off: the quant
  // plugins' tiled f32 matmul). Set before Prepare.
  void set_f16_prefill(bool on) { f16_prefill_on_ = on; }
  // The split-KV attention's partial results (AttentionArgs::partial).
  float* attention_partial() const { return attention_partial_.get<float>(); }
  // Scratch for one step's 8-bit activations (QuantizedInput), in runs of 32.
  orcd_q8_x32* q8_activations() const { return q8_.get<orcd_q8_x32>(); }
  int64_t q8_capacity() const { return q8_capacity_; }
  // What q8_activations() holds this run: the rows QuantizedInput rounded
  // last, or nothing (cleared when it declined, and at every run's start).
  // A MATMUL_SHARED_INPUT reuses it instead of rounding its input again.
  struct Q8Source {
    const float* x = nullptr;
    int64_t rows = 0, cols = 0;
    bool operator==(const Q8Source&) const = default;
  };
  const Q8Source& q8_source() const { return q8_source_; }
  void set_q8_source(const Q8Source& s) { q8_source_ = s; }
  // Decode matvecs of quantized weights take 8-bit activations (default on;
  // off: the f32 matvec, for comparisons).
  bool q8_activations_on() const { return q8_on_; }
  void set_q8_activations(bool on) { q8_on_ = on; }
  // Decode steps are recorded once per number of rows as a graph (after one
  // eager step of that size: lazy module loading and first-touch work stay
  // out of it) and replayed (default on). Off, or a plan with a step that
  // cannot be recorded: every step launches its kernels one by one.
  void set_graphs(bool on) { graphs_on_ = on; }
  bool graphs_on() const { return graphs_on_ && graphs_possible_; }
  uint64_t graph_replays() const { return graph_replays_; }
  // Kernel launches one replay of the decode graph of `rows` rows stands for
  // (0: none yet), and the graphs recorded.
  size_t decode_graph_kernels(int64_t rows = 1) const;
  size_t decode_graphs() const { return decode_graphs_.size(); }
  const VramUsage& usage() const { return usage_; }
  // Whether the weights are still device memory (the residency check).
  bool WeightsResident();

  // DeviceExecution
  float* arena() override { return arena_.get<float>(); }
  float* logits(size_t floats) override;
  void BeginRun(std::span<const int32_t> tokens, int64_t pos0) override;
  void FinishRun(float* host_logits, size_t floats) override;
  int32_t FinishRunArgmax(int64_t row_offset, int64_t vocab) override;
  void PaceRun() override { runtime_->Pace(); }
  void FinishRunSampleRows(std::span<const SampledRow> rows, int64_t vocab,
                           std::span<int32_t> out) override;
  // Rows one FinishRunSampleRows takes at most (a decode step's rows).
  int64_t sample_rows_capacity() const { return sample_rows_capacity_; }
  bool ReplayStep(int64_t decode_rows) override;
  bool CaptureStep(int64_t decode_rows) override;
  void EndCaptureStep() override;
  void AbortCaptureStep() override;

  // KvMemory: zeroed device memory counted as KV cache.
  void* Allocate(uint64_t bytes) override;
  void Free(void* p) override;
  void Copy(void* dst, const void* src, uint64_t bytes) override;

 private:
  DeviceBuffer Make(uint64_t bytes, uint64_t VramUsage::*category);

  std::shared_ptr<DeviceRuntime> runtime_;
  VramUsage usage_;
  DeviceBuffer weights_;
  DeviceBuffer arena_, logits_, positions_, moe_buffer_, gemm_operand_, zero_ids_;
  // A run's values on the device, [StepValues][tokens: row_capacity_][rows:
  // row_capacity_][tables: table_capacity_], and their pinned staging, the
  // same then [result tokens: sample_rows_capacity_][SampleRow: as many]
  // [penalized tokens: penalized_capacity_ per sampled row][RowLogprobs: as
  // many as rows]: three copies in per run (two more to sample), the tokens
  // out (and the rows' log-probabilities when a row asks).
  DeviceBuffer step_block_;
  uint64_t rows_offset_ = 0, tables_offset_ = 0;
  int64_t table_capacity_ = 1;
  std::vector<StepRow> next_rows_;
  std::vector<int32_t> next_tables_;
  bool next_rows_set_ = false;
  PinnedBuffer staging_;
  int32_t* staged_result_ = nullptr;
  SampleRow* staged_sample_rows_ = nullptr;
  int32_t* staged_penalized_ = nullptr;
  bool staging_in_flight_ = false;  // a run's copy in may still be queued
  // The run's chosen token, through the staging (ends the run: waits).
  int32_t ReadToken(const int32_t* device_token);
  // Stages row `row`'s allowed-id bits (structured output) for the next
  // sampling launch; returns their offset in words.
  int64_t StageAllowed(int64_t row, std::span<const uint64_t> allowed, int64_t vocab);
  DeviceBuffer allowed_;  // [sample rows][words]: made on first use
  PinnedBuffer staged_allowed_;
  uint64_t allowed_words_ = 0;
  int64_t staged_allowed_rows_ = 0;  // rows staged for the launch being prepared
  DeviceBuffer sample_keys_, sample_ids_, sample_rows_, penalized_, raw_penalized_, row_logprobs_,
      q8_, attention_partial_, prefill_buffer_;
  RowLogprobs* staged_logprobs_ = nullptr;
  PrefillScratch prefill_;
  bool f16_prefill_on_ = true;
  int64_t sample_padded_ = 0, penalized_capacity_ = 0, sample_rows_capacity_ = 1;
  MoeScratch moe_;
  int64_t row_capacity_ = 0;
  int64_t q8_capacity_ = 0;
  bool q8_on_ = true;
  Q8Source q8_source_;
  bool graphs_on_ = true, graphs_possible_ = true;
  std::set<int64_t> eager_decode_rows_;  // sizes whose warm-up step ran
  uint64_t graph_replays_ = 0;
  int64_t capturing_rows_ = 0;
  std::map<int64_t, std::unique_ptr<DeviceRuntime::Graph>> decode_graphs_;  // by rows
  std::vector<std::pair<void*, uint64_t>> kv_blocks_;
};

}  // namespace orcd::engine::cuda

#endif  // ORCD_HOST_ENGINE_CUDA_CUDA_BACKEND_H_
