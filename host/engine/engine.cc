#include "host/engine/engine.h"

#include <algorithm>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/cpu/simd.h"
#include "host/engine/cuda/cuda_adapters.h"
#include "host/engine/plan_builder.h"
#include "host/engine/plan_validator.h"
#include "host/gguf/file_type.h"

namespace orcd::engine {
namespace {

// Used when neither the options nor the model name a context length.
constexpr int64_t kFallbackContext = 2048;

void CheckDevice(const std::string& device) {
  if (device == "cpu" || device == "cuda") return;
  throw Error(ErrorCode::kInvalidArgument, "unknown device '" + device + "' (cpu | cuda)");
}

// The plugin's plan checked as written (errors name its instructions), then
// lowered for the backend (what it fused in *report) and bound.
BoundPlan BindPlan(const ExecutionPlan& plan, const WeightTable& weights,
                   const AdapterTable& adapters, const EngineOptions& options,
                   LoweringReport* report) {
  BoundPlan bound = ValidatePlan(plan, weights, adapters, options.max_batch);
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
  return ValidatePlan(lowered, weights, adapters, options.max_batch);
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
    kv_ = std::make_unique<KvCache>(plan_.kv_states, ctx, options.kv_type);
    executor_ = std::make_unique<Executor>(bound_, options.threads, cpu::CpuWorkspaceFloats(ctx));
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

void Engine::InitCuda(const EngineOptions& options, int64_t context_length) {
  std::shared_ptr<cuda::DeviceRuntime> runtime = options.device_runtime;
  if (!runtime) runtime = cuda::CreateCudaRuntime(options.gpu_index, options.cuda_stream);
  cuda_ = std::make_unique<cuda::CudaBackend>(std::move(runtime));
  cuda_->set_q8_activations(options.q8_decode_activations);
  cuda_->set_graphs(options.cuda_graphs);
  cuda_->set_f16_prefill(options.cuda_f16_prefill);
  // Everything the model will hold, checked before the first allocation.
  const uint64_t kv_bytes = KvCache::BytesFor(plan_.kv_states, context_length, options.kv_type);
  cuda_->CheckFits(cuda::CudaBackend::WeightBytes(*weights_) + kv_bytes +
                   cuda_->ScratchBytes(bound_));
  cuda_->UploadWeights(*weights_, options.weight_chunk_bytes, options.load_progress);
  kv_ = std::make_unique<KvCache>(plan_.kv_states, context_length, options.kv_type, cuda_.get());
  cuda_->Prepare(bound_, context_length);
  executor_ = std::make_unique<Executor>(bound_, 1, 0, cuda_.get());
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
    out = executor_->Run(Phase::kPrefill, tokens.subspan(begin, count), position_, *kv_, all);
    position_ += count;
    if (all && n > max_batch_)
      std::copy(out.begin(), out.end(), all_logits_.begin() + begin * vocab);
  }
  if (all) return n > max_batch_ ? std::span<const float>(all_logits_) : out;
  return out.subspan(out.size() - static_cast<size_t>(vocab));
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
  return PrefillLast(tokens, [&](std::span<const int32_t> last) {
    return executor_->RunArgmax(Phase::kPrefill, last, position_, *kv_);
  });
}

int32_t Engine::DecodeGreedy(int32_t token) {
  const int32_t one[1] = {token};
  const int32_t next = executor_->RunArgmax(Phase::kDecode, one, position_, *kv_);
  ++position_;
  return next;
}

int32_t Engine::PrefillSample(std::span<const int32_t> tokens, const SampleRequest& request) {
  return PrefillLast(tokens, [&](std::span<const int32_t> last) {
    return executor_->RunSample(Phase::kPrefill, last, position_, *kv_, request);
  });
}

int32_t Engine::DecodeSample(int32_t token, const SampleRequest& request) {
  const int32_t one[1] = {token};
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
  std::span<const float> out = executor_->Run(Phase::kDecode, one, position_, *kv_, false);
  ++position_;
  return out;
}

}  // namespace orcd::engine
