// One job's generation loop, independent of HTTP: prompt tokens in, a stream
// of text-bearing tokens out through a GenerationObserver. It owns the order
// of the per-token checks (cancel, deadline, end of generation, stop strings,
// max tokens, a full context), which is what a user sees as stop_reason.
#ifndef ORCD_HOST_GENERATION_TOKEN_GENERATOR_H_
#define ORCD_HOST_GENERATION_TOKEN_GENERATOR_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "host/generation/inference_service.h"
#include "host/sampling/sampler.h"
#include "host/tokenizer/tokenizer.h"

namespace orcd {

// What the loop needs from a model: evaluate the prompt, evaluate one more
// token. The engine implements it; tests can too.
class LogitSource {
 public:
  virtual ~LogitSource() = default;
  virtual void Reset() = 0;
  // Logits of the last prompt token.
  virtual std::span<const float> Prefill(std::span<const int32_t> tokens) = 0;
  virtual std::span<const float> Decode(int32_t token) = 0;
  // Greedy decoding (temperature 0, no repetition penalty): the argmax of the
  // same logits (ties: the lowest id). A device model overrides these to
  // keep the logits on the device.
  virtual int32_t PrefillGreedy(std::span<const int32_t> tokens);
  virtual int32_t DecodeGreedy(int32_t token);
  // Sampling where the logits are (the device): only models that can.
  virtual bool SamplesOnDevice() const { return false; }
  virtual int32_t PrefillSample(std::span<const int32_t> tokens, const SampleDraw& draw);
  virtual int32_t DecodeSample(int32_t token, const SampleDraw& draw);
  // Whether those picks also report log-probabilities where the logits are
  // (SampleDraw::logprobs): a job asking for them then keeps sampling there.
  virtual bool LogprobsOnDevice() const { return false; }
  // Whether PrefillSample/DecodeSample take SampleDraw::allowed_later and
  // call it while the step is evaluated (a grammar's next mask computed as
  // the device works); else the generator computes the bits first.
  virtual bool OverlapsMasks() const { return false; }
  virtual int64_t position() const = 0;
  virtual int64_t context_length() const = 0;
  // Installs a check the model asks while it evaluates (between layers or
  // prefill passes); when it returns true the evaluation throws
  // Error(kStopped). An empty function removes it. Models that cannot stop
  // mid-evaluation ignore it and are checked between tokens only.
  virtual void SetStopCheck(std::function<bool()>) {}
  // Milliseconds the source waited for its turn before its first
  // evaluation (a scheduler's queue), or -1 when it does not know.
  virtual double queued_ms() const { return -1; }
  // Prompt tokens it found already evaluated (a prefix cache's hit), 0 when
  // none or when it does not know.
  virtual int64_t cached_prompt_tokens() const { return 0; }
};

namespace structured {
class MaskCaches;
class TokenTrie;
}  // namespace structured

struct GeneratorOptions {
  // Sleeps this long after each token (ORCD_DEBUG_TOKEN_DELAY_MS): makes the
  // timing of cancel/timeout/busy tests deterministic on any machine.
  std::chrono::milliseconds debug_token_delay{0};
  // The model's vocabulary as a trie: needed by jobs with a grammar; and the
  // grammars' masks over it, kept across jobs (optional).
  const structured::TokenTrie* token_trie = nullptr;
  structured::MaskCaches* mask_caches = nullptr;
};

// Runs to completion. Throws orcd::Error only from the model; the caller turns
// that into an "error" result. `prompt` must not be empty and must leave room
// in the context for at least one generated token.
GenerationResult GenerateTokens(LogitSource& model, const Tokenizer& tokenizer,
                                const std::vector<int32_t>& prompt, const GenerationInput& input,
                                GenerationObserver& observer, const GeneratorOptions& options);

}  // namespace orcd

#endif  // ORCD_HOST_GENERATION_TOKEN_GENERATOR_H_
