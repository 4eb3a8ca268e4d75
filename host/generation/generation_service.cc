#include "host/generation/generation_service.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <list>
#include <mutex>
#include <optional>
#include <string>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/engine/engine.h"
#include "host/generation/batch_scheduler.h"
#include "host/generation/residency_monitor.h"
#include "host/generation/token_generator.h"
#include "host/gguf/file_type.h"
#include "host/gguf/gguf_file.h"
#include "host/structured/mask_cache.h"
#include "host/structured/token_trie.h"
#include "host/tokenizer/chat_template.h"
#include "host/tokenizer/tokenizer_factory.h"

namespace orcd {
namespace {

// A request's cache_salt as the engine's 64-bit salt (FNV-1a): "" is 0, the
// worker's shared cache.
uint64_t CacheSalt(const std::string& salt) {
  if (salt.empty()) return 0;
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : salt) h = (h ^ c) * 0x100000001b3ull;
  return h == 0 ? 1 : h;
}

class EngineLogits final : public LogitSource {
 public:
  explicit EngineLogits(engine::Engine& engine) : engine_(engine) {}
  void Reset() override { engine_.Reset(); }
  std::span<const float> Prefill(std::span<const int32_t> tokens) override {
    return engine_.Prefill(tokens, engine::LogitRows::kLast);
  }
  std::span<const float> Decode(int32_t token) override { return engine_.Decode(token); }
  int32_t PrefillGreedy(std::span<const int32_t> tokens) override {
    return engine_.PrefillGreedy(tokens);
  }
  int32_t DecodeGreedy(int32_t token) override { return engine_.DecodeGreedy(token); }
  bool SamplesOnDevice() const override { return engine_.samples_on_device(); }
  bool LogprobsOnDevice() const override { return engine_.samples_on_device(); }
  int32_t PrefillSample(std::span<const int32_t> tokens, const SampleDraw& draw) override {
    return engine_.PrefillSample(tokens, engine::SampleRequest::From(draw));
  }
  int32_t DecodeSample(int32_t token, const SampleDraw& draw) override {
    return engine_.DecodeSample(token, engine::SampleRequest::From(draw));
  }
  int64_t position() const override { return engine_.position(); }
  int64_t context_length() const override { return engine_.info().context_length; }
  void SetStopCheck(std::function<bool()> check) override {
    engine_.set_should_stop(std::move(check));
  }

 private:
  engine::Engine& engine_;
};

// One job at a time on an engine that runs one sequence (CUDA), the others
// waiting in arrival order; a waiting job that is cancelled or times out
// leaves the line.
class FifoGate {
 public:
  // False when `give_up` said so before the job's turn came.
  bool Enter(const std::function<bool()>& give_up) {
    std::unique_lock lock(mu_);
    const uint64_t me = next_++;
    line_.push_back(me);
    while (busy_ || line_.front() != me) {
      cv_.wait_for(lock, std::chrono::milliseconds(20));
      if ((busy_ || line_.front() != me) && give_up()) {
        line_.remove(me);
        cv_.notify_all();
        return false;
      }
    }
    line_.pop_front();
    busy_ = true;
    return true;
  }
  void Leave() {
    {
      std::lock_guard lock(mu_);
      busy_ = false;
    }
    cv_.notify_all();
  }
  int waiting() const {
    std::lock_guard lock(mu_);
    return static_cast<int>(line_.size());
  }
  bool busy() const {
    std::lock_guard lock(mu_);
    return busy_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::list<uint64_t> line_;
  uint64_t next_ = 0;
  bool busy_ = false;
};

// CPU backend load progress by bytes: every page of the tensor data is read
// once (faulted in from the file, so that a slow disk shows as progress here
// rather than as a slow first request), reporting 25/50/75 % as the bytes
// pass each quarter. The CUDA backend reports its upload instead.
void TouchWeights(const GgufFile& gguf, const LoadProgress& progress) {
  uint64_t total = 0;
  for (const GgufTensorInfo& t : gguf.tensors()) total += t.n_bytes;
  constexpr uint64_t kPage = 4096;
  uint64_t done = 0;
  int next_quarter = 1;
  volatile uint8_t sink = 0;
  for (const GgufTensorInfo& t : gguf.tensors()) {
    for (uint64_t off = 0; off < t.n_bytes; off += kPage) sink = sink ^ t.data[off];
    done += t.n_bytes;
    while (next_quarter < 4 && total > 0 &&
           done * 4 >= total * static_cast<uint64_t>(next_quarter)) {
      progress(25 * next_quarter++);
    }
  }
  while (next_quarter < 4) progress(25 * next_quarter++);
}

// Stable codes for the SSE error event (retriable ones are named so).
std::string JobErrorCode(const Error& e) {
  switch (e.code()) {
    case ErrorCode::kOutOfMemory:
      return "VRAM_OOM";
    case ErrorCode::kDevice:
      return "CUDA_ERROR";
    case ErrorCode::kInvalidArgument:
      return "INVALID_REQUEST";
    default:
      return "INTERNAL";
  }
}

std::chrono::milliseconds DebugTokenDelay() {
  const char* v = std::getenv("ORCD_DEBUG_TOKEN_DELAY_MS");
  if (v == nullptr || *v == '\0') return std::chrono::milliseconds(0);
  const long ms = std::strtol(v, nullptr, 10);
  if (ms <= 0) return std::chrono::milliseconds(0);
  LogWarn("startup", "ORCD_DEBUG_TOKEN_DELAY_MS is set: every token is slowed down (testing only)",
          {{"delay_ms", std::to_string(ms)}});
  return std::chrono::milliseconds(ms);
}

// A job's observer that also stops the job once the model's weights have
// left device memory (the residency check failed): the job then ends with
// VRAM_RESIDENCY_LOST rather than running on with whatever the memory holds.
class ResidencyGuard final : public GenerationObserver {
 public:
  ResidencyGuard(GenerationObserver& inner, InferenceService& service)
      : inner_(inner), service_(service) {}
  bool OnToken(int64_t index, const std::string& text) override {
    return inner_.OnToken(index, text);
  }
  void OnLogprobs(int64_t index, const TokenLogprobs& logprobs) override {
    inner_.OnLogprobs(index, logprobs);
  }
  bool Cancelled() override { return !service_.Resident() || inner_.Cancelled(); }

 private:
  GenerationObserver& inner_;
  InferenceService& service_;
};

class GenerationService final : public InferenceService {
 public:
  GenerationService(const GenerationOptions& config, const PluginRegistry& registry,
                    DeviceContext& device, const LoadProgress& progress) {
    progress(0);
    const std::unique_ptr<GgufFile> gguf = GgufFile::Open(config.model_path);
    TokenizerSelection selection;
    if (!config.tokenizer_json.empty()) selection.tokenizer_json = config.tokenizer_json;
    selection.family = FindFamilyTraits(registry, gguf->architecture());
    tokenizer_ = CreateTokenizer(*gguf, config.model_path, selection);
    try {
      chat_template_ = SelectChatTemplate(*gguf, selection.family ? &*selection.family : nullptr,
                                          {.template_file = config.chat_template_file});
      LogInfo("chat_template", "chat template selected",
              {{"origin", chat_template_->origin},
               {"output_format", std::string(ChatOutputFormatName(chat_template_->output_format))},
               {"tool_arguments",
                chat_template_->message_options.arguments_as_objects ? "object" : "string"}});
    } catch (const Error& e) {                         // e.g. gpt2: completions only
      if (e.code() != ErrorCode::kUnsupported) throw;  // a bad chat.template_file
      LogInfo("chat_template", "no chat template for this model; /v1/chat/completions is refused",
              {{"reason", e.what()}});
    }
    if (const auto arch = gguf->GetString("general.architecture")) {
      const std::string a(*arch);
      facts_.expert_count = gguf->GetI64(a + ".expert_count").value_or(0);
      facts_.expert_used_count = gguf->GetI64(a + ".expert_used_count").value_or(0);
    }
    facts_.quant_kind = QuantKind(*gguf);

    engine::EngineOptions options;
    options.device = config.device;
    options.threads = config.threads;
    options.q8_decode_activations = config.q8_decode_activations;
    options.context_length = config.context_length;
    options.gpu_index = config.gpu_index;
    options.cuda_stream = device.stream();  // the host context's stream (null on CPU)
    options.weight_chunk_bytes = config.weight_chunk_bytes;
    options.cuda_graphs = config.cuda_graphs;
    options.cuda_gemm_column_tile = config.cuda_gemm_column_tile;
    options.vram_headroom_bytes = config.vram_headroom_bytes;
    options.device_runtime = config.device_runtime;
    const bool on_cuda = config.device == "cuda";
    if (config.slots < 1) throw Error(ErrorCode::kInvalidArgument, "slots must be at least 1");
    // CUDA at one slot keeps the single-sequence path; many slots share
    // steps through the scheduler. Both sample on the device (4 bytes back
    // per token and job).
    const bool batched = !on_cuda || config.slots > 1;
    options.max_sequences = config.slots;
    // A step is one pass: its rows are the scheduler's token budget.
    if (batched) options.max_batch = config.max_batched_tokens;
    if (batched) options.kv_pool_bytes = static_cast<uint64_t>(config.kv_cache_bytes);
    // Only the scheduler maps cached prefixes (the single-sequence path of
    // CUDA at one slot would hold cached blocks and window copies for nothing).
    options.prefix_cache = config.prefix_cache && batched;
    options.kv_type = config.kv_type;
    if (on_cuda) options.load_progress = progress;  // by weight bytes copied
    if (!on_cuda) TouchWeights(*gguf, progress);
    engine_ = engine::Engine::Load(config.model_path, registry, options);

    const engine::ModelInfo& info = engine_->info();
    if (!batched && config.kv_cache_bytes > 0 &&
        info.kv_bytes > static_cast<uint64_t>(config.kv_cache_bytes)) {
      throw Error(ErrorCode::kOutOfMemory,
                  "the KV cache needs " + std::to_string(info.kv_bytes) +
                      " bytes at context length " + std::to_string(info.context_length) +
                      " but limits.kv_cache_bytes allows " + std::to_string(config.kv_cache_bytes) +
                      "; lower limits.context_length");
    }
    if (static_cast<int64_t>(tokenizer_->vocab_size()) > info.vocab) {
      throw Error(ErrorCode::kModelInvalid,
                  "the tokenizer has " + std::to_string(tokenizer_->vocab_size()) +
                      " tokens but the model produces logits for " + std::to_string(info.vocab));
    }
    facts_.model_ref = config.model_path.string();
    facts_.model_name = info.name;
    facts_.architecture = info.architecture;
    facts_.tokenizer_kind = std::string(tokenizer_->kind());
    facts_.vocab_size = info.vocab;
    facts_.context_length = info.context_length;
    facts_.bos_id = tokenizer_->special_ids().bos;
    facts_.eos_id = tokenizer_->special_ids().eos;
    facts_.model_max_context = info.train_context_length;
    facts_.vram_bytes = info.vram_bytes;  // 0 on the CPU backend
    facts_.device = info.device;
    facts_.sm = device.info().sm;
    facts_.cuda_runtime_version = device.info().runtime_version;
    max_prompt_tokens_ = config.max_input_tokens > 0
                             ? std::min(config.max_input_tokens, info.context_length - 1)
                             : info.context_length - 1;
    options_.debug_token_delay = DebugTokenDelay();
    if (!batched) {
      logits_ = std::make_unique<EngineLogits>(*engine_);
    } else {
      SchedulerOptions scheduler_options;
      scheduler_options.max_batched_tokens = config.max_batched_tokens;
      scheduler_options.prompt_batch_tokens = config.prompt_batch_tokens;
      scheduler_options.step_time_target = config.step_time_target;
      scheduler_options.one_kind_per_part = on_cuda;
      scheduler_options.cache_answers = config.cache_answers;
      scheduler_ = std::make_unique<BatchScheduler>(*engine_, scheduler_options);
      const engine::KvPoolInfo pool = engine_->kv_pool();
      LogInfo("scheduler", "continuous batching ready",
              {{"slots", std::to_string(pool.max_sequences)},
               {"kv_blocks", std::to_string(pool.blocks_total)},
               {"kv_block_tokens", std::to_string(pool.block_tokens)},
               {"max_batched_tokens", std::to_string(config.max_batched_tokens)},
               {"prompt_batch_tokens", std::to_string(config.prompt_batch_tokens)},
               {"step_time_target_ms",
                std::to_string(
                    std::chrono::duration_cast<std::chrono::milliseconds>(config.step_time_target)
                        .count())}});
    }
    UpdateVramUsed();
    if (engine::cuda::CudaBackend* cuda = engine_->cuda_backend()) {
      // Checked once now, then on a timer whether or not /health is polled.
      residency_ =
          std::make_unique<ResidencyMonitor>([cuda] { return cuda->WeightsResident(); },
                                             std::chrono::seconds(config.residency_check_seconds));
    }
    if (!on_cuda) progress(100);
  }

  const ModelFacts& facts() const override { return facts_; }

  bool DeviceLost() const override { return device_failed_; }
  uint64_t VramBytesUsed() const override { return vram_used_.load(); }

  ServingStats serving() const override {
    ServingStats s;
    if (!scheduler_) {  // one at a time
      s.running = gate_.busy() ? 1 : 0;
      s.waiting = gate_.waiting();
      return s;
    }
    return scheduler_->stats();
  }

  bool Resident() override {
    if (device_failed_) return false;
    return residency_ == nullptr || residency_->resident();  // CPU: nothing to lose
  }
  int64_t max_prompt_tokens() const override { return max_prompt_tokens_; }

  const Tokenizer* tokenizer() const override { return tokenizer_.get(); }

  int64_t CountTokens(const std::string& text, bool add_special_tokens) override {
    return static_cast<int64_t>(Encode(text, add_special_tokens).size());
  }

  ChatPrompt ApplyChatTemplate(const ChatRequest& request) override {
    if (!chat_template_) {
      throw Error(ErrorCode::kUnsupported,
                  "model '" + facts_.model_name + "' has no chat template; use /v1/completions");
    }
    if (!chat_template_->jinja && !request.tools.is_none()) {
      throw Error(ErrorCode::kInvalidArgument,
                  "tools: this model has no chat template of its own, and its default " +
                      std::string(ChatFormatName(chat_template_->format)) +
                      " format has no place for tools");
    }
    ChatRenderInput input;
    input.messages = PrepareTemplateMessages(request.messages, chat_template_->message_options);
    input.tools = request.tools;
    input.add_generation_prompt = true;
    input.extra = request.kwargs;
    ChatPrompt prompt;
    prompt.text = RenderChat(*chat_template_, input);
    prompt.add_special_tokens = chat_template_->add_special_tokens();
    prompt.output_format = chat_template_->output_format;
    return prompt;
  }

  GenerationResult Generate(const GenerationInput& input, GenerationObserver& client) override {
    ResidencyGuard observer(client, *this);
    struct UpdateAfter {
      GenerationService* self;
      ~UpdateAfter() { self->UpdateVramUsed(); }
    } update_vram{this};
    GenerationResult result;
    try {
      const std::vector<int32_t> prompt = Encode(input.prompt, input.add_special_tokens);
      result.prompt_tokens = static_cast<int64_t>(prompt.size());
      if (prompt.empty()) {
        return Failed(result, "INVALID_REQUEST", "the prompt encodes to no tokens");
      }
      if (result.prompt_tokens > max_prompt_tokens_) {
        return Failed(result, "INVALID_REQUEST",
                      "the prompt has " + std::to_string(result.prompt_tokens) +
                          " tokens; the limit is " + std::to_string(max_prompt_tokens_));
      }
      if (scheduler_) {
        const std::unique_ptr<LogitSource> sequence =
            scheduler_->OpenSequence(result.prompt_tokens + std::max<int64_t>(input.max_tokens, 1),
                                     CacheSalt(input.cache_salt));
        GenerationResult r =
            GenerateTokens(*sequence, *tokenizer_, prompt, input, observer, OptionsFor(input));
        r.queue_ms = sequence->queued_ms();
        r.cached_tokens = sequence->cached_prompt_tokens();
        return UnlessResidencyLost(std::move(r));
      }
      const auto queued_since = std::chrono::steady_clock::now();
      const auto give_up = [&] {
        return observer.Cancelled() || std::chrono::steady_clock::now() >= input.deadline;
      };
      if (!gate_.Enter(give_up)) {
        result.stop_reason =
            std::chrono::steady_clock::now() >= input.deadline ? "timeout" : "cancelled";
        return UnlessResidencyLost(std::move(result));
      }
      struct LeaveGate {
        FifoGate& gate;
        ~LeaveGate() { gate.Leave(); }
      } leave{gate_};
      const double queued_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - queued_since)
              .count();
      GenerationResult r =
          GenerateTokens(*logits_, *tokenizer_, prompt, input, observer, OptionsFor(input));
      r.queue_ms = queued_ms;
      return UnlessResidencyLost(std::move(r));
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kDevice && engine_->cuda_backend() != nullptr) {
        // The CUDA context may be unusable: report unhealthy so the
        // orchestrator replaces this worker.
        device_failed_ = true;
        LogError("cuda_fatal", "device error during a job; the worker reports unhealthy",
                 {{"error", e.what()}});
      }
      return Failed(result, JobErrorCode(e), e.what());
    } catch (const std::exception& e) {
      return Failed(result, "INTERNAL", e.what());
    }
  }

 private:
  // Control tokens written in the prompt (e.g. <|im_start|>) are meant as
  // such: chat prompts rendered by ApplyChatTemplate depend on it.
  std::vector<int32_t> Encode(const std::string& text, bool add_special_tokens) const {
    return tokenizer_->Encode(text, add_special_tokens, /*parse_special=*/true);
  }

  // Read on the generating thread (the backend's accounting is not
  // thread-safe), published for /health and /metrics.
  void UpdateVramUsed() {
    engine::cuda::CudaBackend* cuda = engine_->cuda_backend();
    vram_used_ = cuda != nullptr ? cuda->usage().total() : 0;
  }

  // A job stopped by ResidencyGuard fails with the residency's code.
  GenerationResult UnlessResidencyLost(GenerationResult r) {
    if (r.stop_reason != "cancelled" || Resident()) return r;
    return Failed(std::move(r), "VRAM_RESIDENCY_LOST",
                  "the model's weights are no longer resident in device memory");
  }

  static GenerationResult Failed(GenerationResult r, const std::string& code,
                                 const std::string& message) {
    r.stop_reason = "error";
    r.error_code = code;
    r.error_message = message;
    return r;
  }

  std::unique_ptr<Tokenizer> tokenizer_;
  std::optional<ChatTemplate> chat_template_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<EngineLogits> logits_;       // CUDA, one slot: one job at a time through gate_
  std::unique_ptr<BatchScheduler> scheduler_;  // many at once
  mutable FifoGate gate_;
  ModelFacts facts_;
  int64_t max_prompt_tokens_ = 0;
  GeneratorOptions options_;
  // The vocabulary's trie, built by the first job with a grammar (~0.3 s and
  // a few tens of MiB at Qwen's vocabulary: not paid by workers that never
  // constrain output).
  std::once_flag token_trie_once_;
  std::unique_ptr<structured::TokenTrie> token_trie_;
  // Masks are kept for the 16 most recent grammars, 8 MiB each at most
  // (~430 states at Qwen's vocabulary; 128 MiB in all at worst).
  structured::MaskCaches mask_caches_{16, size_t{8} << 20};
  GeneratorOptions OptionsFor(const GenerationInput& input) {
    GeneratorOptions options = options_;
    if (input.grammar) {
      std::call_once(token_trie_once_,
                     [&] { token_trie_ = std::make_unique<structured::TokenTrie>(*tokenizer_); });
      options.token_trie = token_trie_.get();
      options.mask_caches = &mask_caches_;
    }
    return options;
  }
  // CUDA: after engine_, so that it stops before the backend it checks goes.
  std::unique_ptr<ResidencyMonitor> residency_;
  std::atomic<bool> device_failed_{false};
  std::atomic<uint64_t> vram_used_{0};
};

}  // namespace

std::unique_ptr<InferenceService> CreateGenerationService(const GenerationOptions& config,
                                                          const PluginRegistry& registry,
                                                          DeviceContext& device,
                                                          const LoadProgress& progress) {
  return std::make_unique<GenerationService>(config, registry, device, progress);
}

}  // namespace orcd
