#include "host/engine/engine.h"

#include <algorithm>
#include <utility>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/cpu/simd.h"
#include "host/engine/cuda/cuda_adapters.h"
#include "host/engine/plan_builder.h"
#include "host/engine/plan_validator.h"
#include "host/gguf/file_type.h"
#include "host/sampling/sampler.h"

namespace orcd::engine {
namespace {

// Used when neither the options nor the model name a context length.
constexpr int64_t kFallbackContext = 2048;

void CheckDevice(const std::string& device) {
  if (device == "cpu" || device == "cuda") return;
  throw Error(ErrorCode::kInvalidArgument, "unknown device '" + device + "' (cpu | cuda)");
}

// Rows of a decode run: on CUDA a generated token of every sequence at once
// (the CPU runs several sequences' tokens as a prefill-phase step).
int64_t DecodeRows(const EngineOptions& options) {
  return options.device == "cuda" ? std::max(1, options.max_sequences) : 1;
}

// The plugin's plan checked as written (errors name its instructions), then
// lowered for the backend (what it fused in *report) and bound.
BoundPlan BindPlan(const ExecutionPlan& plan, const WeightTable& weights,
                   const AdapterTable& adapters, const EngineOptions& options,
                   LoweringReport* report) {
  BoundPlan bound = ValidatePlan(plan, weights, adapters, options.max_batch, DecodeRows(options));
  *report = {};
  if (!options.fuse_ops) return bound;
  WeightQueries queries;
  if (adapters.backend() == ORCD_BACKEND_CUDA) {
    const bool q8 = options.q8_decode_activations;
    queries.rounds_input = [&weights, q8](const std::string& name) {
      const WeightRef* w = weights.Find(name);
      return q8 && w != nullptr && cuda::TakesQ8Input(*w);
    };
    // A question about two weights, by name.
    const auto of_pair = [&weights, q8](bool (*pred)(const WeightRef&, const WeightRef&)) {
      return [&weights, q8, pred](const std::string& a, const std::string& b) {
        const WeightRef* wa = weights.Find(a);
        const WeightRef* wb = weights.Find(b);
        return q8 && wa != nullptr && wb != nullptr && pred(*wa, *wb);
      };
    };
    queries.fuses_gate_up = of_pair(&cuda::FusesGateUp);
    queries.joins_matvecs = of_pair(&cuda::JoinsMatvecs);
  }
  const ExecutionPlan lowered = LowerPlan(plan, adapters, report, queries);
  if (report->total() == 0) return bound;
  return ValidatePlan(lowered, weights, adapters, options.max_batch, DecodeRows(options));
}

}  // namespace

std::unique_ptr<Engine> Engine::Load(const std::filesystem::path& model,
                                     const PluginRegistry& registry, const EngineOptions& options) {
  CheckDevice(options.device);
  std::unique_ptr<GgufFile> file = GgufFile::Open(model);
  const ModelRoute route = RouteModel(registry, *file);
  return Load(std::move(file), route, options);
}

std::unique_ptr<Engine> Engine::Load(std::unique_ptr<GgufFile> file, const ModelRoute& route,
                                     const EngineOptions& options) {
  std::unique_ptr<Engine> engine(new Engine());
  engine->Init(std::move(file), route, options);
  return engine;
}

Engine::~Engine() = default;

void Engine::Init(std::unique_ptr<GgufFile> file, const ModelRoute& route,
                  const EngineOptions& options) {
  CheckDevice(options.device);
  if (route.arch.entry == nullptr) {
    throw Error(ErrorCode::kUnsupported, file->source_name() + ": no architecture plugin");
  }
  if (options.max_batch <= 0)
    throw Error(ErrorCode::kInvalidArgument, "max_batch must be positive");
  file_ = std::move(file);
  weights_ = std::make_unique<WeightTable>(*file_, route.quant);
  plan_ = CompilePlan(*route.arch.entry, *file_);
  const bool on_cuda = options.device == "cuda";
  adapters_ = std::make_unique<AdapterTable>(on_cuda ? cuda::MakeCudaAdapterTable()
                                                     : cpu::MakeCpuAdapterTable());
  max_batch_ = options.max_batch;
  bound_ = BindPlan(plan_, *weights_, *adapters_, options, &lowering_);
  info_.fused_sequences = lowering_.total();

  const std::string arch(file_->architecture());
  info_.architecture = arch;
  info_.arch_plugin = route.arch.plugin ? route.arch.plugin->name : "";
  info_.name = std::string(file_->GetString("general.name").value_or(file_->source_name()));
  info_.train_context_length =
      static_cast<int64_t>(file_->GetU64(arch + ".context_length").value_or(0));
  info_.quant_kind = QuantKind(*file_);
  info_.expert_count = static_cast<int64_t>(file_->GetU64(arch + ".expert_count").value_or(0));
  info_.expert_used_count =
      static_cast<int64_t>(file_->GetU64(arch + ".expert_used_count").value_or(0));
  int64_t ctx = options.context_length;
  if (ctx <= 0)
    ctx = info_.train_context_length > 0 ? info_.train_context_length : kFallbackContext;
  if (on_cuda) {
    InitCuda(options, ctx);
  } else {
    InitKvPool(options, ctx, PoolLayout(options, ctx), nullptr);
    executor_ =
        std::make_unique<Executor>(bound_, options.threads, cpu::CpuWorkspaceFloats(bound_, ctx));
    executor_->set_q8_activations(options.q8_decode_activations);
  }

  info_.vocab = bound_.phase(Phase::kDecode).vocab;
  info_.context_length = ctx;
  for (const GgufTensorInfo& t : file_->tensors()) info_.weight_bytes += t.n_bytes;
  info_.kv_bytes = kv_->bytes();
  info_.threads = executor_->threads();
  info_.device =
      on_cuda ? "cuda: " + cuda_->runtime().name()
              : "cpu (" + std::to_string(info_.threads) + " threads, " + cpu::Simd().name + ")";
  info_.vram_bytes = on_cuda ? cuda_->usage().total() : 0;
  info_.prefill_instructions =
      static_cast<int64_t>(bound_.phase(Phase::kPrefill).instructions.size());
  info_.decode_instructions =
      static_cast<int64_t>(bound_.phase(Phase::kDecode).instructions.size());
  LogInfo("engine_ready", "model loaded",
          {{"architecture", arch},
           {"plugin", info_.arch_plugin},
           {"device", info_.device},
           {"context_length", std::to_string(ctx)},
           {"kv_bytes", std::to_string(info_.kv_bytes)},
           {"kv_type", std::string(KvTypeName(options.kv_type))},
           {"fused_sequences", std::to_string(info_.fused_sequences)},
           {"prefill_scratch_floats", std::to_string(bound_.phase(Phase::kPrefill).arena_floats)}});
}

KvLayout Engine::PoolLayout(const EngineOptions& options, int64_t context_length) const {
  if (options.max_sequences < 1)
    throw Error(ErrorCode::kInvalidArgument, "max_sequences must be at least 1");
  if (options.kv_block_tokens < 1)
    throw Error(ErrorCode::kInvalidArgument, "kv_block_tokens must be at least 1");
  KvLayout layout;
  layout.block_tokens = options.kv_block_tokens;
  layout.ring_slots = options.max_sequences;
  const uint64_t block_bytes =
      KvCache::BlockBytes(plan_.kv_states, layout.block_tokens, options.kv_type);
  if (options.prefix_cache && block_bytes > 0 &&
      KvCache::RingBytes(plan_.kv_states, context_length, 1, options.kv_type) > 0) {
    // Prefix caching keeps copies of windows (ring_snapshots.h): a spare ring
    // per sequence, and a block of margin in every ring.
    layout.ring_slots = 2 * options.max_sequences;
    layout.ring_margin_blocks = 1;
  }
  const int64_t per_sequence = (context_length + layout.block_tokens - 1) / layout.block_tokens;
  const uint64_t ring_bytes =
      KvCache::RingBytes(plan_.kv_states, context_length, layout.block_tokens, options.kv_type,
                         layout.ring_margin_blocks) *
      static_cast<uint64_t>(layout.ring_slots);
  layout.blocks = per_sequence * options.max_sequences;
  if (options.kv_pool_bytes > 0 && block_bytes > 0) {
    // The budget less the windows' rings, in whole blocks.
    if (options.kv_pool_bytes < ring_bytes + block_bytes) {
      throw Error(ErrorCode::kOutOfMemory,
                  "limits.kv_cache_bytes (" + std::to_string(options.kv_pool_bytes) +
                      ") cannot hold one KV block (" + std::to_string(block_bytes) +
                      " bytes) beside the sliding windows of " +
                      std::to_string(options.max_sequences) + " sequences (" +
                      std::to_string(ring_bytes) + " bytes)");
    }
    layout.blocks = static_cast<int64_t>((options.kv_pool_bytes - ring_bytes) / block_bytes);
  }
  if (block_bytes == 0) layout.blocks = 1;  // every layer has a window: the pool is unused
  return layout;
}

uint64_t Engine::PoolBytes(const KvLayout& layout, int64_t context_length, KvType type) const {
  return KvCache::BlockBytes(plan_.kv_states, layout.block_tokens, type) *
             static_cast<uint64_t>(layout.blocks) +
         KvCache::RingBytes(plan_.kv_states, context_length, layout.block_tokens, type,
                            layout.ring_margin_blocks) *
             static_cast<uint64_t>(layout.ring_slots);
}

void Engine::InitKvPool(const EngineOptions& options, int64_t context_length,
                        const KvLayout& layout, KvMemory* memory) {
  kv_ = std::make_unique<KvCache>(plan_.kv_states, context_length, options.kv_type, memory, layout);
  sequences_.assign(static_cast<size_t>(options.max_sequences), Sequence{});
  blocks_ = std::make_unique<KvBlockPool>(layout.blocks, layout.block_tokens);
  // Both backends give a prompt row the same bits whatever chunk it is
  // evaluated in: a cached block holds a cold run's.
  const bool pooled = KvCache::BlockBytes(plan_.kv_states, 1, kv_->type()) > 0;
  prefix_cache_ = options.prefix_cache && pooled;
  if (prefix_cache_ && layout.ring_slots > options.max_sequences) {
    snapshots_ = std::make_unique<RingSnapshots>(options.max_sequences,
                                                 layout.ring_slots - options.max_sequences);
    ring_reach_ = kv_->RingReach();
  }
}

int Engine::OpenSequence() {
  for (size_t i = 0; i < sequences_.size(); ++i) {
    if (sequences_[i].open) continue;
    sequences_[i] = Sequence{};
    sequences_[i].open = true;
    return static_cast<int>(i);
  }
  return -1;
}

int64_t Engine::BlocksFor(int64_t positions) const {
  if (KvCache::BlockBytes(plan_.kv_states, 1, kv_->type()) == 0) return 0;
  const int64_t bt = kv_->layout().block_tokens;
  return (positions + bt - 1) / bt;
}

bool Engine::Reserve(int sequence, int64_t positions) {
  Sequence& seq = sequences_.at(static_cast<size_t>(sequence));
  if (positions > kv_->context_length()) {
    throw Error(ErrorCode::kInvalidArgument, std::to_string(positions) +
                                                 " positions exceed the context length " +
                                                 std::to_string(kv_->context_length()));
  }
  const int64_t need = BlocksFor(positions) - static_cast<int64_t>(seq.blocks.size());
  if (need <= 0) return true;
  if (need > blocks_->available()) return false;
  for (int64_t i = 0; i < need; ++i) seq.blocks.push_back(blocks_->Take());
  return true;
}

void Engine::CloseSequence(int sequence) {
  Sequence& seq = sequences_.at(static_cast<size_t>(sequence));
  if (blocks_) {
    for (auto b = seq.blocks.rbegin(); b != seq.blocks.rend(); ++b) blocks_->Release(*b);
  }
  seq = Sequence{};
  if (sequence == legacy_sequence_) legacy_sequence_ = -1;
}

std::span<const float> Engine::Step(std::span<const StepPart> parts) {
  if (parts.empty()) throw Error(ErrorCode::kInvalidArgument, "a step of no sequences");
  step_tokens_.clear();
  step_seqs_.clear();
  step_positions_.clear();
  step_token_seq_.clear();
  step_generated_.clear();
  step_logit_rows_.clear();
  step_samples_.clear();
  bool sampling = false;
  for (const StepPart& part : parts) {
    if (part.sample != nullptr) {
      if (!samples_on_device() || !part.logits || part.rows != LogitRows::kLast) {
        throw Error(ErrorCode::kInvalidArgument,
                    "step: a part samples on the device only with a device that samples, for "
                    "its last row");
      }
      sampling = true;
    }
  }
  for (const StepPart& part : parts) {
    if (part.sequence < 0 || part.sequence >= static_cast<int>(sequences_.size()) ||
        !sequences_[static_cast<size_t>(part.sequence)].open) {
      throw Error(ErrorCode::kInvalidArgument,
                  "step: sequence " + std::to_string(part.sequence) + " is not open");
    }
    const Sequence& seq = sequences_[static_cast<size_t>(part.sequence)];
    const auto n = static_cast<int64_t>(part.tokens.size());
    if (n == 0) throw Error(ErrorCode::kInvalidArgument, "step: a part of zero tokens");
    if (seq.length + n > kv_->context_length()) {
      throw Error(ErrorCode::kInvalidArgument,
                  std::to_string(n) + " tokens at position " + std::to_string(seq.length) +
                      " exceed the context length " + std::to_string(kv_->context_length()));
    }
    if (BlocksFor(seq.length + n) > static_cast<int64_t>(seq.blocks.size())) {
      throw Error(ErrorCode::kInternal, "step: sequence " + std::to_string(part.sequence) +
                                            " has no KV blocks reserved for its tokens");
    }
    for (const StepPart* other = parts.data(); other != &part; ++other) {
      if (other->sequence == part.sequence)
        throw Error(ErrorCode::kInvalidArgument, "step: a sequence appears twice");
    }
    StepSequence ss;
    ss.first_row = static_cast<int64_t>(step_tokens_.size());
    ss.n_tokens = n;
    ss.pos0 = seq.length;
    ss.kv = {seq.blocks.data(), static_cast<int64_t>(seq.blocks.size()), part.sequence};
    for (int64_t i = 0; i < n; ++i) {
      step_tokens_.push_back(part.tokens[static_cast<size_t>(i)]);
      step_positions_.push_back(seq.length + i);
      step_token_seq_.push_back(static_cast<int32_t>(step_seqs_.size()));
      step_generated_.push_back(i >= part.prompt_tokens ? 1 : 0);
    }
    if (part.logits) {
      for (int64_t i = part.rows == LogitRows::kAll ? 0 : n - 1; i < n; ++i) {
        step_logit_rows_.push_back(ss.first_row + i);
        if (sampling) step_samples_.push_back(part.sample);
      }
    }
    step_seqs_.push_back(ss);
  }
  const bool one_generated = step_tokens_.size() == 1 && step_generated_[0] == 1;
  if (static_cast<int64_t>(step_tokens_.size()) > max_batch_) {
    throw Error(ErrorCode::kInvalidArgument, "step of " + std::to_string(step_tokens_.size()) +
                                                 " tokens; at most " + std::to_string(max_batch_));
  }
  Phase phase = one_generated ? Phase::kDecode : Phase::kPrefill;
  if (cuda_) phase = BindDeviceStep(parts);
  StepInput in;
  in.tokens = step_tokens_;
  in.seqs = step_seqs_;
  in.positions = step_positions_;
  in.token_seq = step_token_seq_;
  in.generated = step_generated_;
  in.logit_rows = step_logit_rows_;
  in.samples = step_samples_;
  // One decode token: the decode phase (the plans' phases share their
  // instructions on the CPU; the counters tell them apart).
  std::span<const float> out = executor_->RunStep(phase, in, *kv_);
  for (const StepPart& part : parts) {
    Sequence& seq = sequences_[static_cast<size_t>(part.sequence)];
    const int64_t old_length = seq.length;
    seq.length += static_cast<int64_t>(part.tokens.size());
    RegisterPromptBlocks(seq, part, old_length);
    // The lookup counts once the sequence runs (not when its admission is
    // undone and retried).
    prefix_query_tokens_ += std::exchange(seq.uncounted_query, 0);
    prefix_hit_tokens_ += std::exchange(seq.uncounted_hit, 0);
  }
  return out;
}

void Engine::Reset() {
  position_ = 0;
  if (legacy_sequence_ >= 0) CloseSequence(legacy_sequence_);
}

std::span<const float> Engine::LegacyStep(std::span<const int32_t> tokens, bool generated,
                                          bool all_logits) {
  const auto n = static_cast<int64_t>(tokens.size());
  LegacySequence(n);
  StepPart part{legacy_sequence_, tokens, generated ? 0 : n, true};
  part.rows = all_logits ? LogitRows::kAll : LogitRows::kLast;
  std::span<const float> out = Step({&part, 1});
  position_ += n;
  return out;
}

Engine::Sequence& Engine::LegacySequence(int64_t n) {
  if (legacy_sequence_ < 0) {
    legacy_sequence_ = OpenSequence();
    if (legacy_sequence_ < 0)
      throw Error(ErrorCode::kInternal, "every KV sequence is taken by Step() callers");
  }
  if (!Reserve(legacy_sequence_, position_ + n)) {  // throws past the context length
    throw Error(ErrorCode::kOutOfMemory,
                "the KV pool has no free blocks for " + std::to_string(n) + " more positions");
  }
  Sequence& seq = sequences_[static_cast<size_t>(legacy_sequence_)];
  seq.length = position_;  // the sequence follows position_ (Reset() rewinds it)
  return seq;
}

std::span<const float> Engine::Prefill(std::span<const int32_t> tokens, LogitRows rows) {
  const auto n = static_cast<int64_t>(tokens.size());
  CheckPromptFits(n);
  const bool all = rows == LogitRows::kAll;
  const int64_t vocab = info_.vocab;
  if (all && n > max_batch_) all_logits_.resize(static_cast<size_t>(n * vocab));
  std::span<const float> out;
  for (int64_t begin = 0; begin < n; begin += max_batch_) {
    const int64_t count = std::min(max_batch_, n - begin);
    out = RunPass(tokens.subspan(begin, count), /*generated=*/false, all);
    if (all && n > max_batch_)
      std::copy(out.begin(), out.end(), all_logits_.begin() + begin * vocab);
  }
  if (all) return n > max_batch_ ? std::span<const float>(all_logits_) : out;
  return out.subspan(out.size() - static_cast<size_t>(vocab));
}

std::span<const float> Engine::RunPass(std::span<const int32_t> tokens, bool generated,
                                       bool all_logits) {
  if (!cuda_) return LegacyStep(tokens, generated, all_logits);
  BindLegacyRun(static_cast<int64_t>(tokens.size()));
  std::span<const float> out = executor_->Run(generated ? Phase::kDecode : Phase::kPrefill, tokens,
                                              position_, *kv_, all_logits);
  position_ += static_cast<int64_t>(tokens.size());
  return out;
}

void Engine::CheckPromptFits(int64_t n) const {
  if (n == 0) throw Error(ErrorCode::kInvalidArgument, "prefill of zero tokens");
  if (position_ + n > kv_->context_length()) {
    throw Error(ErrorCode::kInvalidArgument,
                "prompt of " + std::to_string(n) + " tokens at position " +
                    std::to_string(position_) + " exceeds the context length " +
                    std::to_string(kv_->context_length()));
  }
}

int32_t Engine::PrefillGreedy(std::span<const int32_t> tokens) {
  if (!cuda_) return GreedyToken(Prefill(tokens));
  return PrefillLast(tokens, [&](std::span<const int32_t> last) {
    BindLegacyRun(static_cast<int64_t>(last.size()));
    return executor_->RunArgmax(Phase::kPrefill, last, position_, *kv_);
  });
}

int32_t Engine::DecodeGreedy(int32_t token) {
  if (!cuda_) return GreedyToken(Decode(token));
  const int32_t one[1] = {token};
  BindLegacyRun(1);
  const int32_t next = executor_->RunArgmax(Phase::kDecode, one, position_, *kv_);
  ++position_;
  return next;
}

int32_t Engine::PrefillSample(std::span<const int32_t> tokens, const SampleRequest& request) {
  return PrefillLast(tokens, [&](std::span<const int32_t> last) {
    BindLegacyRun(static_cast<int64_t>(last.size()));
    return executor_->RunSample(Phase::kPrefill, last, position_, *kv_, request);
  });
}

int32_t Engine::DecodeSample(int32_t token, const SampleRequest& request) {
  const int32_t one[1] = {token};
  BindLegacyRun(1);
  const int32_t next = executor_->RunSample(Phase::kDecode, one, position_, *kv_, request);
  ++position_;
  return next;
}

int32_t Engine::PrefillLast(std::span<const int32_t> tokens,
                            const std::function<int32_t(std::span<const int32_t>)>& last_pass) {
  const auto n = static_cast<int64_t>(tokens.size());
  CheckPromptFits(n);
  const int64_t last = (n - 1) / max_batch_ * max_batch_;  // the pass holding the last token
  if (last > 0) Prefill(tokens.first(static_cast<size_t>(last)));
  const int32_t token = last_pass(tokens.subspan(static_cast<size_t>(last)));
  position_ += n - last;
  return token;
}

std::span<const float> Engine::Decode(int32_t token) {
  const int32_t one[1] = {token};
  return RunPass(one, /*generated=*/true, false);
}

}  // namespace orcd::engine
