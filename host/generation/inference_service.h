// What the HTTP layer needs from the model: facts for /health and one
// generation at a time. Generation owns this interface (the server depends on
// generation, never the reverse); GenerationService implements it (engine +
// tokenizer + sampler) and the server's tests substitute their own.
#ifndef ORCD_HOST_GENERATION_INFERENCE_SERVICE_H_
#define ORCD_HOST_GENERATION_INFERENCE_SERVICE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/chat/jinja/value.h"
#include "host/chat/output/chat_output_format.h"
#include "host/common/histogram.h"
#include "host/generation/sampling_params.h"
#include "host/sampling/token_logprobs.h"

namespace orcd {

class Tokenizer;

struct ModelFacts {
  std::string model_ref;   // the model path as configured
  std::string model_name;  // general.name, else the file stem
  std::string architecture;
  std::string quant_kind;      // e.g. Q4_K_M, MXFP4, F16
  std::string tokenizer_kind;  // gguf-bpe | gguf-spm | hf-json
  int64_t vocab_size = 0;
  int64_t context_length = 0;  // as allocated
  int64_t bos_id = -1;         // -1: the vocabulary has none
  int64_t eos_id = -1;
  int64_t model_max_context = 0;  // the context the model was trained for; 0 unknown
  int64_t expert_count = 0;       // 0 for dense models
  int64_t expert_used_count = 0;
  uint64_t vram_bytes = 0;
  bool resident = true;
  std::string device;  // "cpu" or the GPU's name
  int sm = 0;          // CUDA only
  std::string cuda_runtime_version;
};

namespace structured {
class Grammar;
}

struct GenerationInput {
  std::string prompt;  // already templated when it came through /v1/chat
  // Encode with the vocabulary's BOS/EOS rule. False for a prompt a chat
  // template rendered: the template wrote the BOS it wants (transformers
  // encodes its output without special tokens).
  bool add_special_tokens = true;
  // Control tokens whose text the output keeps (the chat output parser reads
  // them, e.g. gpt-oss's <|channel|>); others are dropped from the text.
  std::vector<std::string> render_special;
  int64_t max_tokens = 0;
  SamplingParams sampling;
  std::vector<std::string> stop;
  // When the job must end (INFERENCE_TIMEOUT): the configured timeout, or the
  // request's X-Deadline when that comes first.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Prefix caching: requests share cached prompt blocks only under the same
  // salt (empty: the worker's shared cache). Tenants that must not learn of
  // each other's prompts through timing send different salts.
  std::string cache_salt;
  // Log-probabilities of each generated token and of this many alternatives
  // (0 .. kMaxTopLogprobs) through GenerationObserver::OnLogprobs; -1: none.
  int top_logprobs = -1;
  // Structured output: the output is a sentence of this grammar (a JSON
  // schema's compact instances), every token drawn from those that keep it
  // one, the end only where it can end. Null: free text.
  std::shared_ptr<const structured::Grammar> grammar;
};

// Receives a job's output; called on the generating thread.
class GenerationObserver {
 public:
  virtual ~GenerationObserver() = default;
  // One call per generated token: its index and the text that became safe to
  // emit with it (may be empty: a partial UTF-8 character or a held-back
  // possible stop string). Returns false when the consumer is gone.
  virtual bool OnToken(int64_t index, const std::string& text) = 0;
  // When the input asked for logprobs: token `index`'s, before its OnToken
  // (whose text may come with a later call's, held back).
  virtual void OnLogprobs(int64_t /*index*/, const TokenLogprobs& /*logprobs*/) {}
  // Polled between tokens and, every few milliseconds, while the model
  // evaluates (a long prefill); true stops the job with stop_reason
  // "cancelled".
  virtual bool Cancelled() = 0;
};

struct GenerationResult {
  // "eos" | "max_tokens" | "stop" | "context_full" (no KV position left) |
  // "cancelled" | "timeout" | "client_gone" | "error"
  std::string stop_reason;
  std::string stop_string;  // the stop string that ended it (stop_reason "stop")
  std::string error_code;   // stable code when stop_reason == "error"
  std::string error_message;
  int64_t prompt_tokens = 0;
  int64_t cached_tokens = 0;  // of prompt_tokens, found in the prefix cache
  int64_t tokens_out = 0;
  double prefill_ms = 0;
  double decode_ms = 0;
  double ttft_ms = -1;
  double queue_ms = -1;  // accepted until its first step, when the service knows
};

// A /v1/chat/completions conversation as the chat template receives it.
struct ChatRequest {
  // The messages as sent (dicts in their key order; text parts joined).
  jinja::Value messages = jinja::Value::List({});
  jinja::Value tools = jinja::Value::None();  // a list, or None (none, or tool_choice "none")
  // Further template variables: reasoning_effort, chat_template_kwargs.
  jinja::Dict kwargs;
};

// The rendered conversation and how to read the model's answer.
struct ChatPrompt {
  std::string text;
  bool add_special_tokens = false;  // see GenerationInput
  ChatOutputFormat output_format = ChatOutputFormat::kPlain;
};

// How busy the service is, for /health and /metrics.
struct ServingStats {
  int slots_total = 1;  // sequences generated at once
  int running = 0;
  int waiting = 0;  // accepted, waiting for a sequence or KV blocks
  int64_t kv_blocks_total = 0;
  int64_t kv_blocks_free = 0;
  uint64_t steps = 0;
  uint64_t step_tokens = 0;
  uint64_t step_sequences = 0;
  uint64_t preemptions = 0;
  // Prefix caching (KvPoolInfo's): on, blocks holding a known prefix, prompt
  // tokens looked up and found, cached blocks evicted for new ones.
  bool prefix_cache = false;
  int64_t kv_blocks_cached = 0;
  uint64_t prefix_query_tokens = 0;
  uint64_t prefix_hit_tokens = 0;
  uint64_t kv_block_evictions = 0;
  // Answers evaluated again as prompt tokens after their request ended, so
  // that a conversation's next turn finds them cached (CPU scheduler).
  uint64_t answers_cached = 0;
  Histogram step_sequences_hist{{1, 2, 4, 8, 16, 32, 64, 128}};
  Histogram step_tokens_hist{{1, 4, 16, 64, 256, 512, 1024, 2048, 4096}};
  // How long each step took (one that failed is not counted): with jobs
  // generating, the gap a step puts between their tokens.
  Histogram step_seconds_hist{{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}};
};

class InferenceService {
 public:
  virtual ~InferenceService() = default;
  virtual const ModelFacts& facts() const = 0;
  virtual int64_t CountTokens(const std::string& text, bool add_special_tokens = true) = 0;
  // The model's tokenizer (/tokenize, /detokenize); null when it has none.
  // Immutable, so callable from any thread.
  virtual const Tokenizer* tokenizer() const { return nullptr; }
  // Prompt length in tokens after the service's own rules (BOS etc.).
  virtual int64_t max_prompt_tokens() const = 0;
  // Renders a conversation with the model's chat template, ending with the
  // assistant's generation prompt. Throws orcd::Error (kUnsupported: no
  // template; kInvalidArgument or a jinja::TemplateError: the template
  // refuses the conversation).
  virtual ChatPrompt ApplyChatTemplate(const ChatRequest& request) = 0;
  // Runs one job to completion (never throws: failures come back as results).
  // Each token index is delivered once; text still held back at the end goes
  // out with the last token. Thread-safe: each request calls it on its own
  // thread, and up to serving().slots_total jobs generate at once.
  virtual GenerationResult Generate(const GenerationInput& input, GenerationObserver& observer) = 0;
  // Whether the model is still fully resident on its device (the periodic
  // residency check; false also after a fatal device error). Thread-safe.
  virtual bool Resident() { return facts().resident; }
  // Device memory held now (0 on the CPU backend), as of the last job.
  // Thread-safe.
  virtual uint64_t VramBytesUsed() const { return facts().vram_bytes; }
  // True after a device error that may have left the CUDA context unusable:
  // the worker then drains and exits non-zero so the orchestrator restarts it.
  virtual bool DeviceLost() const { return false; }
  // Thread-safe.
  virtual ServingStats serving() const { return {}; }
};

}  // namespace orcd

#endif  // ORCD_HOST_GENERATION_INFERENCE_SERVICE_H_
