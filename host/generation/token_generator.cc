#include "host/generation/token_generator.h"

#include <optional>
#include <thread>
#include <vector>

#include "host/common/status.h"
#include "host/generation/stop_matcher.h"
#include "host/sampling/sampler.h"
#include "host/sampling/token_logprobs.h"
#include "host/structured/mask_cache.h"
#include "host/structured/token_constraint.h"
#include "host/tokenizer/streaming_detokenizer.h"

namespace orcd {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

SamplerConfig ToSamplerConfig(const SamplingParams& p) {
  SamplerConfig c;
  c.temperature = p.temperature;
  c.repetition_penalty = p.repetition_penalty;
  c.top_k = p.top_k;
  c.top_p = p.top_p;
  c.min_p = p.min_p;
  c.seed = p.seed;
  c.adjustments.presence_penalty = p.presence_penalty;
  c.adjustments.frequency_penalty = p.frequency_penalty;
  c.adjustments.logit_bias = p.logit_bias;
  return c;
}

}  // namespace

int32_t LogitSource::PrefillGreedy(std::span<const int32_t> tokens) {
  return GreedyToken(Prefill(tokens));
}
int32_t LogitSource::DecodeGreedy(int32_t token) { return GreedyToken(Decode(token)); }
int32_t LogitSource::PrefillSample(std::span<const int32_t>, const SampleDraw&) {
  throw Error(ErrorCode::kInternal, "this model does not sample on a device");
}
int32_t LogitSource::DecodeSample(int32_t, const SampleDraw&) {
  throw Error(ErrorCode::kInternal, "this model does not sample on a device");
}

namespace {

// Cancellation and the deadline, asked by the model while it evaluates (a
// long prefill) as well as between tokens. The observer is asked at most
// every kPollEvery: it may poll a socket, and the engine asks between every
// instruction.
class StopCheck {
 public:
  static constexpr auto kPollEvery = std::chrono::milliseconds(2);
  StopCheck(GenerationObserver& observer, Clock::time_point deadline)
      : observer_(observer), deadline_(deadline) {}
  bool Poll() {
    const auto now = Clock::now();
    if (now >= deadline_) return Fire("timeout");
    if (now - last_poll_ < kPollEvery) return false;
    last_poll_ = now;
    return observer_.Cancelled() ? Fire("cancelled") : false;
  }
  // Why Poll() fired (after the model threw Error(kStopped)).
  const char* reason() const { return reason_; }

 private:
  bool Fire(const char* reason) {
    reason_ = reason;
    return true;
  }
  GenerationObserver& observer_;
  Clock::time_point deadline_;
  Clock::time_point last_poll_{};
  const char* reason_ = "cancelled";
};

// Installs the stop check on the model for one job, whatever way it ends.
class StopCheckScope {
 public:
  StopCheckScope(LogitSource& model, StopCheck& check) : model_(model) {
    model_.SetStopCheck([&check] { return check.Poll(); });
  }
  ~StopCheckScope() { model_.SetStopCheck({}); }
  StopCheckScope(const StopCheckScope&) = delete;
  StopCheckScope& operator=(const StopCheckScope&) = delete;

 private:
  LogitSource& model_;
};

bool IsStopped(const Error& e) { return e.code() == ErrorCode::kStopped; }

}  // namespace

GenerationResult GenerateTokens(LogitSource& model, const Tokenizer& tokenizer,
                                const std::vector<int32_t>& prompt, const GenerationInput& input,
                                GenerationObserver& observer, const GeneratorOptions& options) {
  GenerationResult result;
  result.prompt_tokens = static_cast<int64_t>(prompt.size());
  const auto t_start = Clock::now();
  StopCheck stop_check(observer, input.deadline);
  StopCheckScope stop_scope(model, stop_check);

  model.Reset();
  // Greedy jobs, and every job on a device that samples, read back a token
  // id per step, not the logits; OpenAI's logit adjustments need the logits
  // row on the host, and so do grammars unless the device samples (it masks
  // the row with the grammar's bits: SampleDraw::allowed) and logprobs
  // unless the device reports them with its pick (then greedy jobs with
  // logprobs or a grammar sample there too, at temperature 0: the same
  // argmax).
  const SamplerConfig sampler_config = ToSamplerConfig(input.sampling);
  const bool logprobs = input.top_logprobs >= 0;
  const bool host_logits = sampler_config.adjustments.active() ||
                           (input.grammar != nullptr && !model.SamplesOnDevice()) ||
                           (logprobs && !model.LogprobsOnDevice());
  const bool greedy = !host_logits && !logprobs && input.grammar == nullptr &&
                      input.sampling.temperature <= 0.0 && input.sampling.repetition_penalty == 1.0;
  const bool on_device = !greedy && !host_logits && model.SamplesOnDevice();
  Sampler sampler(sampler_config);
  // Structured output: each token drawn from those the grammar allows (the
  // others' logits set to -inf before the sampler's filters), by the host
  // sampler or the device's.
  std::optional<structured::TokenConstraint> constraint;
  // Where the device puts each pick's log-probabilities.
  TokenLogprobs device_logprobs;
  auto next_draw = [&] {
    SampleDraw draw = sampler.NextDraw();
    if (logprobs) {
      draw.top_logprobs = input.top_logprobs;
      draw.logprobs = &device_logprobs;
    }
    if (constraint && model.OverlapsMasks()) {  // the state after the last pick
      draw.allowed_later = [&constraint] { return constraint->AllowedBits(); };
    } else if (constraint) {
      draw.allowed = constraint->AllowedBits();
    }
    return draw;
  };
  std::vector<float> masked;
  if (input.grammar) {
    if (options.token_trie == nullptr)
      throw Error(ErrorCode::kInternal, "a job with a grammar needs the vocabulary's trie");
    constraint.emplace(
        input.grammar, *options.token_trie,
        options.mask_caches != nullptr ? options.mask_caches->For(input.grammar) : nullptr);
  }
  // The model's logits row, read in place: valid until the next model call.
  std::span<const float> logits;
  int32_t next_token = -1;  // greedy / on_device: already chosen by the model
  try {
    if (greedy) {
      next_token = model.PrefillGreedy(prompt);
    } else if (on_device) {
      next_token = model.PrefillSample(prompt, next_draw());
    } else {
      logits = model.Prefill(prompt);
    }
  } catch (const Error& e) {
    if (!IsStopped(e)) throw;
    result.prefill_ms = MsSince(t_start);
    result.stop_reason = stop_check.reason();
    return result;
  }
  result.prefill_ms = MsSince(t_start);

  DetokenizerOptions detokenizer_options;
  detokenizer_options.continues_text = true;  // the output follows the prompt's text
  for (const std::string& text : input.render_special) {
    const std::vector<TokenId> ids = tokenizer.Encode(text, false, /*parse_special=*/true);
    if (ids.size() == 1) detokenizer_options.render_special_ids.push_back(ids[0]);
  }
  StreamingDetokenizer detokenizer(tokenizer, std::move(detokenizer_options));
  StopMatcher stops(input.stop);
  const auto t_decode = Clock::now();
  int64_t index = -1;  // of the last token produced
  // A token event whose text is partly held back (an incomplete character, a
  // possible stop prefix) waits for the next token, so that text released at
  // the end goes out with its own token's index instead of a repeated one.
  struct Deferred {
    int64_t index;
    std::string text;
  };
  std::optional<Deferred> deferred;
  auto emit_deferred = [&](const std::string& extra) {
    if (!deferred) return true;
    const bool ok = observer.OnToken(deferred->index, deferred->text + extra);
    deferred.reset();
    return ok;
  };

  while (true) {
    if (observer.Cancelled()) {
      result.stop_reason = "cancelled";
      break;
    }
    if (Clock::now() >= input.deadline) {
      result.stop_reason = "timeout";
      break;
    }
    int32_t token = next_token;
    if (constraint && !on_device) {
      // The pick is checked against the grammar (a few bytes matched); only
      // a refused pick computes the mask and picks again.
      token = sampler.SampleAllowed(
          logits, [&](int32_t t) { return constraint->Allows(t); },
          [&] {
            masked.assign(logits.begin(), logits.end());
            constraint->Mask(masked);
            return std::span<const float>(masked);
          });
    } else if (!greedy && !on_device) {
      token = sampler.Sample(logits);
    }
    if (on_device) sampler.Record(token);
    if (tokenizer.IsEndOfGeneration(token)) {
      result.stop_reason = "eos";
      break;
    }
    if (constraint) constraint->Accept(token);
    std::string text = stops.Push(detokenizer.Push(token));
    ++index;
    ++result.tokens_out;
    if (logprobs) {
      observer.OnLogprobs(
          index, on_device ? device_logprobs : ComputeLogprobs(logits, token, input.top_logprobs));
    }
    if (result.ttft_ms < 0) result.ttft_ms = MsSince(t_start);
    // Decided before the token goes out, so that the last token carries
    // whatever text is still held back.
    if (stops.stopped()) {
      result.stop_reason = "stop";
    } else if (constraint && constraint->Finished()) {
      result.stop_reason = "eos";  // the grammar's sentence is whole: only an end may follow
    } else if (result.tokens_out >= input.max_tokens) {
      result.stop_reason = "max_tokens";
    } else if (model.position() >= model.context_length()) {
      // The token just sampled needs a KV position of its own to be evaluated.
      result.stop_reason = "context_full";
    }
    if (result.stop_reason == "max_tokens" || result.stop_reason == "context_full" ||
        result.stop_reason == "eos") {
      text += stops.Push(detokenizer.Flush());
      if (stops.stopped()) {
        result.stop_reason = "stop";
      } else {
        text += stops.Flush();
      }
    }
    if (!emit_deferred("")) {
      result.stop_reason = "client_gone";
      break;
    }
    if (result.stop_reason.empty() && (stops.holding() || detokenizer.holding())) {
      deferred = Deferred{index, std::move(text)};
    } else if (!observer.OnToken(index, text)) {
      result.stop_reason = "client_gone";
      break;
    }
    if (!result.stop_reason.empty()) break;
    if (options.debug_token_delay.count() > 0)
      std::this_thread::sleep_for(options.debug_token_delay);
    try {
      if (greedy) {
        next_token = model.DecodeGreedy(token);
      } else if (on_device) {
        next_token = model.DecodeSample(token, next_draw());
      } else {
        logits = model.Decode(token);
      }
    } catch (const Error& e) {
      if (!IsStopped(e)) throw;
      result.stop_reason = stop_check.reason();
      break;
    }
  }
  result.decode_ms = MsSince(t_decode);

  // The deferred token goes out now: with the text still held back when
  // the model ended it (eos), bare otherwise (the held text is dropped on an
  // abnormal end).
  if (deferred) {
    std::string tail;
    if (result.stop_reason == "eos") {
      tail = stops.Push(detokenizer.Flush());
      if (stops.stopped()) {
        result.stop_reason = "stop";
      } else {
        tail += stops.Flush();
      }
    }
    if (!emit_deferred(tail) && result.stop_reason != "cancelled" &&
        result.stop_reason != "timeout") {
      result.stop_reason = "client_gone";
    }
  }
  if (stops.stopped()) result.stop_string = stops.matched();
  return result;
}

}  // namespace orcd
