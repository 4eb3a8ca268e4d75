// A model ready to run: the GGUF mapped, routed to its plugins, its plan
// compiled by the architecture plugin, validated and bound once, the KV cache
// allocated once. Prefill evaluates a whole prompt as one matrix-matrix pass
// per batch (max_batch tokens); decode evaluates one token.
//
// Many sequences: up to max_sequences sequences share one KV pool in blocks;
// Step() evaluates several of them as one pass whose matmuls read each weight
// once, while attention, positions and KV stay per sequence. A sequence's
// bits do not depend on what else shares its steps. The CPU backend takes
// any mix of decode tokens and prompt chunks in a step; the CUDA backend a
// step of generated tokens of up to max_sequences sequences (each with one
// token's arithmetic, one CUDA graph per number of rows) or one sequence's
// prompt chunk.
#ifndef ORCD_HOST_ENGINE_ENGINE_H_
#define ORCD_HOST_ENGINE_ENGINE_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "host/engine/adapter_table.h"
#include "host/engine/bound_plan.h"
#include "host/engine/cuda/cuda_backend.h"
#include "host/engine/cuda/device_runtime.h"
#include "host/engine/dispatch_counters.h"
#include "host/engine/executor.h"
#include "host/engine/kv_block_pool.h"
#include "host/engine/kv_cache.h"
#include "host/engine/lowering.h"
#include "host/engine/plan.h"
#include "host/engine/ring_snapshots.h"
#include "host/engine/weight_table.h"
#include "host/gguf/gguf_file.h"
#include "host/plugins/model_router.h"

namespace orcd::engine {

struct EngineOptions {
  std::string device = "cpu";  // "cpu" | "cuda" (never a fallback from one to the other)
  int threads = 0;             // 0 = every hardware thread
  int64_t context_length = 0;  // 0 = the model's <arch>.context_length
  KvType kv_type = KvType::kF16;
  int64_t max_batch = 512;  // tokens per prefill pass
  // One-token matmuls (decode; MoE experts picked by one token) round the
  // activations to 8 bits before quantized weights that offer it (llama.cpp's
  // arithmetic: CPU matvec_q8, ~1.5-2x faster decode; CUDA matvec_q8 with
  // dp4a, ABI 1.3); false keeps f32 everywhere.
  bool q8_decode_activations = true;

  // CUDA: the device to run on. Null = the GPU `gpu_index`, launching on
  // `cuda_stream` (the host's, or null for a stream of the engine's own);
  // tests pass an emulated device (cuda::CreateEmulatedRuntime).
  std::shared_ptr<cuda::DeviceRuntime> device_runtime;
  int gpu_index = 0;
  void* cuda_stream = nullptr;
  uint64_t weight_chunk_bytes = 1 << 20;  // weight upload chunk (pinned staging)
  // CUDA: record the one-token decode step once as a CUDA graph and replay it
  // (one launch per token instead of hundreds); false launches every kernel.
  bool cuda_graphs = true;
  // CUDA: quantized weights' prefill matmuls (16 tokens and more) on tensor
  // cores: dequantized to f16 in chunks and multiplied by cuBLAS, activations
  // rounded to f16 (~5e-4 relative); false keeps the plugins' f32 kernel,
  // whose bits for a prompt row depend on the rows its step's prompt run
  // holds (other prompts beside it): for comparisons (orcd-bench), not batch
  // invariant.
  bool cuda_f16_prefill = true;
  // CUDA: every cuBLAS GEMM over column tiles of this many tokens, the last
  // padded (cuda/column_tiled_gemm.h): a prompt row's bits then never depend
  // on how many prompt rows its step holds, whatever kernel cuBLAS picks per
  // shape. 0: one GEMM per call, cuBLAS's choice for its shape (the emulated
  // device's GEMM is column-invariant either way; whether cuBLAS's is, and
  // what tiles cost, awaits a GPU: bench/RESULTS.md).
  int64_t cuda_gemm_column_tile = 0;
  // CUDA: device memory left free at load beyond what the model needs
  // (weights, KV, scratch), for what is allocated later and outside orcd's
  // accounting: cuBLAS's workspace, kernel modules loaded lazily on first
  // launch (orcd's, the plugins', cuBLAS's), CUDA graphs. -1: the default,
  // kDefaultVramHeadroom on a GPU, none on the emulated device (it has none
  // of these).
  static constexpr int64_t kDefaultVramHeadroom = int64_t{512} << 20;
  int64_t vram_headroom_bytes = -1;
  // Let the backend fuse instruction sequences it has lowered ops for
  // (lowering.h; the CUDA backend: ADD + RMS_NORM, bias + ROPE, ROPE pairs,
  // shared matmul inputs). Same results bit for bit; false runs the plan as
  // the plugin wrote it, for comparisons.
  bool fuse_ops = true;
  // Sequences held at once and the KV pool they share (device memory on
  // CUDA): kv_pool_bytes 0 = room for every sequence at the context
  // length; less lets sequences share (each still bounded by the context).
  int max_sequences = 1;
  uint64_t kv_pool_bytes = 0;
  int64_t kv_block_tokens = 32;
  // Prefix caching: full blocks of prompt tokens stay cached after their
  // sequence ends, and MatchPrefix maps them onto a new sequence (with
  // sliding-window layers, only up to a block whose windows were copied:
  // ring_snapshots.h).
  bool prefix_cache = true;
  // Load progress in percent of the weight bytes copied (0, 25, 50, 75, 100).
  std::function<void(int)> load_progress;
};

struct ModelInfo {
  std::string architecture;
  std::string arch_plugin;           // name of the plugin that compiled the plan
  std::string name;                  // general.name, or the file name
  int64_t vocab = 0;                 // logits per position
  int64_t context_length = 0;        // allocated
  int64_t train_context_length = 0;  // <arch>.context_length, 0 when absent
  std::string quant_kind;            // as users name it: "F16", "Q4_K_M", "MXFP4"
  int64_t expert_count = 0;          // <arch>.expert_count; 0 for dense models
  int64_t expert_used_count = 0;     // <arch>.expert_used_count (experts per token)
  uint64_t weight_bytes = 0;         // tensor data of the file
  uint64_t kv_bytes = 0;
  std::string device;       // e.g. "cpu (2 threads, avx2)", "cuda: NVIDIA H100 ... (sm_90)"
  uint64_t vram_bytes = 0;  // device memory held (CUDA), all categories
  int threads = 0;
  int64_t prefill_instructions = 0;
  int64_t decode_instructions = 0;
  int64_t fused_sequences = 0;  // launches the lowering step saves (a prefill + a decode step)
};

enum class LogitRows { kLast, kAll };

// One sequence's part of a step: its next tokens, of which the first
// `prompt_tokens` are prompt tokens and the rest generated ones (a decode
// token; tokens recomputed after a preemption), and whether its last token's
// (or every token's) logits come back. With `sample` (a device that
// samples, last row only) the last row is sampled there instead and only
// the chosen id comes back (Engine::step_sampled()).
struct StepPart {
  int sequence = -1;
  std::span<const int32_t> tokens;
  int64_t prompt_tokens = 0;
  bool logits = true;
  LogitRows rows = LogitRows::kLast;
  const SampleRequest* sample = nullptr;
};

struct KvPoolInfo {
  int64_t block_tokens = 0;
  int64_t blocks_total = 0;
  int64_t blocks_free = 0;  // free, or cached and held by no sequence (evictable)
  int max_sequences = 0;
  bool prefix_cache = false;
  int64_t blocks_cached = 0;         // holding a known prefix, held or not
  uint64_t prefix_query_tokens = 0;  // prompt tokens MatchPrefix looked up (sequences that ran)
  uint64_t prefix_hit_tokens = 0;    // of which it mapped onto cached blocks
  uint64_t evictions = 0;
};

class Engine {
 public:
  // Opens `model`, routes it through `registry` and loads it. Throws
  // orcd::Error: kModelInvalid / kUnsupported (routing, PlanError), kDevice
  // (device "cuda": no CUDA backend in the engine yet), kOutOfMemory.
  static std::unique_ptr<Engine> Load(const std::filesystem::path& model,
                                      const PluginRegistry& registry, const EngineOptions& options);
  // Loads with an explicit route (its arch claim compiles the plan).
  static std::unique_ptr<Engine> Load(std::unique_ptr<GgufFile> file, const ModelRoute& route,
                                      const EngineOptions& options);

  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Evaluates `tokens` at the current position with the prefill plan, in
  // passes of at most max_batch tokens. Returns the last token's logits
  // [1][vocab], or every token's [n][vocab].
  std::span<const float> Prefill(std::span<const int32_t> tokens,
                                 LogitRows rows = LogitRows::kLast);
  // Evaluates one token with the decode plan; returns its logits [vocab].
  std::span<const float> Decode(int32_t token);

  // Greedy decoding: the same evaluations, returning only the argmax of the
  // last token's logits (ties: the lowest id). On CUDA the logits stay on the
  // device and only the id is read back.
  int32_t PrefillGreedy(std::span<const int32_t> tokens);
  int32_t DecodeGreedy(int32_t token);
  // Seeded sampling on the device (CUDA only: samples_on_device()), in the
  // CPU sampler's order; only the chosen id is read back.
  bool samples_on_device() const { return cuda_ != nullptr; }
  int32_t PrefillSample(std::span<const int32_t> tokens, const SampleRequest& request);
  int32_t DecodeSample(int32_t token, const SampleRequest& request);

  // Checked between prefill passes (and between instructions on the CPU);
  // true abandons the run with Error(kStopped). Empty: never stop.
  void set_should_stop(std::function<bool()> f) { executor_->set_should_stop(std::move(f)); }

  // Starts a new sequence (the KV cache is overwritten as positions refill).
  void Reset();
  int64_t position() const { return position_; }

  // Sequences of the KV pool (the single-sequence API above holds one of
  // them while in use). OpenSequence returns an id,
  // or -1 when max_sequences are open. Reserve gives a sequence blocks for
  // `positions` positions in all; false (nothing changed) when the pool has
  // too few free blocks. Close frees its blocks.
  int OpenSequence();
  bool Reserve(int sequence, int64_t positions);
  void CloseSequence(int sequence);
  // Prefix caching: maps onto `sequence` (just opened, empty) the cached
  // blocks of `prompt`'s leading full blocks evaluated before as prompt
  // tokens under the same `salt` (requests that must not share pass
  // different salts), leaving at least the prompt's last token to evaluate;
  // where the prompt then leaves a cached block part way (a conversation's
  // next turn, another question after a shared system prompt), copies of
  // that block's matching leading rows (plans without sliding windows).
  // Returns the positions mapped: the sequence's length now; its next Step
  // part starts at prompt[returned]. The logits that follow are the bits a
  // cold run gives (batch invariance). 0 when caching is off.
  int64_t MatchPrefix(int sequence, std::span<const int32_t> prompt, uint64_t salt = 0);
  // Prefix caching, after a sequence generated: forgets its positions past
  // its prompt of `prompt_length` tokens (their KV came from decode steps,
  // whose bits a prompt's differ from), keeping its blocks, so that its
  // generated tokens can be evaluated again as prompt tokens and their full
  // blocks cached for the next turn of a conversation. False (nothing
  // changed) when caching is off or the sequence's prompt is not that long.
  bool RewindToPrompt(int sequence, int64_t prompt_length);
  // Prefix caching with sliding windows: the position at which a prompt
  // step of `sequence` should end (0: none). MatchPrefix maps cached blocks
  // only up to one whose windows were copied (ring_snapshots.h); where it
  // found more, a step ending at their end leaves that copy, so the next
  // prompt with the same beginning (a shared system prompt) maps them all.
  int64_t PromptStop(int sequence) const;
  // Blocks `positions` positions need, and the pool's state.
  int64_t BlocksFor(int64_t positions) const;
  KvPoolInfo kv_pool() const;
  // Evaluates the parts (distinct sequences, at most max_batch tokens in
  // all, each with its blocks reserved) at their sequences' next positions
  // and returns the logits of the parts that asked and did not sample, in
  // order, [k][vocab]; the ids of those that sampled in step_sampled(), in
  // order (valid until the next step).
  std::span<const float> Step(std::span<const StepPart> parts);
  std::span<const int32_t> step_sampled() const { return executor_->sampled(); }

  const ModelInfo& info() const { return info_; }
  const ExecutionPlan& plan() const { return plan_; }
  const BoundPlan& bound_plan() const { return bound_; }
  // What the lowering step fused for this backend (lowering.h).
  const LoweringReport& lowering() const { return lowering_; }
  DispatchCounters& counters() { return executor_->counters(); }
  // The CUDA backend's device state (VRAM accounting, residency); null on CPU.
  cuda::CudaBackend* cuda_backend() { return cuda_.get(); }

 private:
  Engine() = default;
  void Init(std::unique_ptr<GgufFile> file, const ModelRoute& route, const EngineOptions& options);
  // Prefills all but the pass holding the last token, then runs `last_pass`
  // on that pass (at the current position) and returns its token.
  int32_t PrefillLast(std::span<const int32_t> tokens,
                      const std::function<int32_t(std::span<const int32_t>)>& last_pass);
  // Throws kInvalidArgument unless n (> 0) prompt tokens fit at the position.
  void CheckPromptFits(int64_t n) const;
  // The CUDA backend: VRAM check, weights, KV cache and scratch on the device.
  void InitCuda(const EngineOptions& options, int64_t context_length);

  std::unique_ptr<GgufFile> file_;
  std::unique_ptr<WeightTable> weights_;
  std::unique_ptr<cuda::CudaBackend> cuda_;  // before kv_ and executor_: they use it
  std::unique_ptr<AdapterTable> adapters_;
  ExecutionPlan plan_;
  BoundPlan bound_;
  LoweringReport lowering_;
  std::unique_ptr<KvCache> kv_;
  struct Sequence {
    bool open = false;
    int64_t length = 0;
    std::vector<int32_t> blocks;
    // Prefix caching: the leading prompt tokens (up to the first generated
    // one), the full blocks registered so far, and the salt.
    std::vector<int32_t> prompt;
    bool generated = false;
    int64_t registered = 0;
    uint64_t salt = 0;
    // MatchPrefix's lookup, added to the pool's counters at the first step.
    uint64_t uncounted_query = 0, uncounted_hit = 0;
    // Sliding windows: where cached blocks MatchPrefix could not map end.
    int64_t window_stop = 0;
  };
  std::vector<Sequence> sequences_;
  std::unique_ptr<KvBlockPool> blocks_;
  bool prefix_cache_ = false;
  uint64_t prefix_query_tokens_ = 0, prefix_hit_tokens_ = 0;
  // Plans with sliding-window layers: copies of windows at block ends, and
  // how far past a block's end a step may go with the rings still holding
  // the window before it (KvCache::RingReach).
  std::unique_ptr<RingSnapshots> snapshots_;
  int64_t ring_reach_ = 0;
  // After a step: the sequence's newly full prompt blocks become cached
  // (and the windows at the last one's end copied).
  void RegisterPromptBlocks(Sequence& seq, const StepPart& part, int64_t old_length);
  // At MatchPrefix, past the mapped blocks: the rows of the cached block
  // that begins with the longest run of the prompt's next tokens, copied
  // into a new block of the sequence's; how many.
  int64_t CopyLeadingRows(Sequence& seq, std::span<const int32_t> prompt);
  // MatchPrefix with windows: keeps the blocks mapped up to the deepest one
  // whose windows were copied, and copies them into the sequence's rings.
  void MapWindows(int sequence, Sequence& seq);
  int legacy_sequence_ = -1;  // the single-sequence API's, on the CPU (opened on first use)
  // Step scratch, reused.
  std::vector<int32_t> step_tokens_;
  std::vector<StepSequence> step_seqs_;
  std::vector<int64_t> step_positions_, step_logit_rows_;
  std::vector<const SampleRequest*> step_samples_;
  std::vector<int32_t> step_token_seq_;
  std::vector<uint8_t> step_generated_;
  // The single-sequence API on the CPU: one part of a step.
  std::span<const float> RunPass(std::span<const int32_t> tokens, bool generated, bool all_logits);
  std::span<const float> LegacyStep(std::span<const int32_t> tokens, bool generated,
                                    bool all_logits);
  // The KV pool's cut for the options (throws what cannot hold one block),
  // its bytes, and the cache, sequences and block pool it makes.
  KvLayout PoolLayout(const EngineOptions& options, int64_t context_length) const;
  uint64_t PoolBytes(const KvLayout& layout, int64_t context_length, KvType type) const;
  void InitKvPool(const EngineOptions& options, int64_t context_length, const KvLayout& layout,
                  KvMemory* memory);
  // CUDA: the step's rows (StepRow) for the device, and the phase it runs:
  // decode when every token is generated; throws kUnsupported for a mix, or
  // prompt tokens of several sequences.
  Phase BindDeviceStep(std::span<const StepPart> parts);
  // The single-sequence API's sequence, opened if need be and grown for n
  // more tokens at position_ (kOutOfMemory when the pool has no blocks).
  Sequence& LegacySequence(int64_t n);
  // CUDA: the device rows (StepRow) and block tables of these sequences'
  // tokens, for the next run.
  void SetDeviceRows(std::span<const StepSequence> seqs);
  // CUDA: the single-sequence API's next run of n tokens at position_.
  void BindLegacyRun(int64_t n);
  std::vector<cuda::StepRow> device_rows_;
  std::vector<int32_t> device_tables_;
  std::unique_ptr<Executor> executor_;
  ModelInfo info_;
  int64_t max_batch_ = 0;
  int64_t position_ = 0;
  std::vector<float> all_logits_;  // Prefill(kAll) over several passes
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_ENGINE_H_
