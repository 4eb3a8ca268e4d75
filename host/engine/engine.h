// A model ready to run: the GGUF mapped, routed to its plugins, its plan
// compiled by the architecture plugin, validated and bound once, the KV cache
// of its slot allocated at the configured context length. Prefill evaluates a
// whole prompt as one matrix-matrix pass per batch (max_batch tokens); decode
// evaluates one token. Batch 1: one slot.
#ifndef ORCD_HOST_ENGINE_ENGINE_H_
#define ORCD_HOST_ENGINE_ENGINE_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "host/engine/adapter_table.h"
#include "host/engine/bound_plan.h"
#include "host/engine/dispatch_counters.h"
#include "host/engine/executor.h"
#include "host/engine/kv_cache.h"
#include "host/engine/plan.h"
#include "host/engine/weight_table.h"
#include "host/gguf/gguf_file.h"
#include "host/plugins/model_router.h"

namespace orcd::engine {

struct EngineOptions {
  std::string device = "cpu";  // "cpu" | "cuda" (no CUDA adapters yet: refused)
  int threads = 0;             // 0 = every hardware thread
  int64_t context_length = 0;  // 0 = the model's <arch>.context_length
  KvType kv_type = KvType::kF16;
  int64_t max_batch = 512;  // tokens per prefill pass
  // One-token matmuls (decode; MoE experts picked by one token) round the
  // activations to 8 bits before quantized weights that offer it (llama.cpp's
  // CPU arithmetic, ~1.5-2x faster decode); false keeps f32 everywhere.
  bool q8_decode_activations = true;
};

struct ModelInfo {
  std::string architecture;
  std::string arch_plugin;           // name of the plugin that compiled the plan
  std::string name;                  // general.name, or the file name
  int64_t vocab = 0;                 // logits per position
  int64_t context_length = 0;        // allocated
  int64_t train_context_length = 0;  // <arch>.context_length, 0 when absent
  std::string quant_kind;            // as users name it: "F16", "Q4_K_M", "MXFP4_MOE"
  int64_t expert_count = 0;          // <arch>.expert_count; 0 for dense models
  int64_t expert_used_count = 0;     // <arch>.expert_used_count (experts per token)
  uint64_t weight_bytes = 0;         // tensor data of the file
  uint64_t kv_bytes = 0;
  std::string device;  // e.g. "cpu (2 threads, avx2)"
  int threads = 0;
  int64_t prefill_instructions = 0;
  int64_t decode_instructions = 0;
};

enum class LogitRows { kLast, kAll };

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

  // Starts a new sequence (the KV cache is overwritten as positions refill).
  void Reset() { position_ = 0; }
  int64_t position() const { return position_; }

  const ModelInfo& info() const { return info_; }
  const ExecutionPlan& plan() const { return plan_; }
  const BoundPlan& bound_plan() const { return bound_; }
  DispatchCounters& counters() { return executor_->counters(); }

 private:
  Engine() = default;
  void Init(std::unique_ptr<GgufFile> file, const ModelRoute& route, const EngineOptions& options);

  std::unique_ptr<GgufFile> file_;
  std::unique_ptr<WeightTable> weights_;
  std::unique_ptr<AdapterTable> adapters_;
  ExecutionPlan plan_;
  BoundPlan bound_;
  std::unique_ptr<KvCache> kv_;
  std::unique_ptr<Executor> executor_;
  ModelInfo info_;
  int64_t max_batch_ = 0;
  int64_t position_ = 0;
  std::vector<float> all_logits_;  // Prefill(kAll) over several passes
};

}  // namespace orcd::engine

#endif  // ORCD_HOST_ENGINE_ENGINE_H_
