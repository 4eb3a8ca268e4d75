#include "host/generation/token_generator.h"

#include <thread>

#include "host/common/status.h"
#include "host/sampling/sampler.h"
#include "host/server/stop_matcher.h"
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

GenerationResult GenerateTokens(LogitSource& model, const Tokenizer& tokenizer,
                                const std::vector<int32_t>& prompt, const GenerationInput& input,
                                GenerationObserver& observer, const GeneratorOptions& options) {
  GenerationResult result;
  result.prompt_tokens = static_cast<int64_t>(prompt.size());
  const auto t_start = Clock::now();

  model.Reset();
  // Greedy jobs, and every job on a device that samples, read back a token
  // id per step, not the logits.
  const bool greedy = input.sampling.temperature <= 0.0 && input.sampling.repetition_penalty == 1.0;
  const bool on_device = !greedy && model.SamplesOnDevice();
  Sampler sampler(ToSamplerConfig(input.sampling));
  // The model's logits row, read in place: valid until the next model call.
  std::span<const float> logits;
  int32_t next_token = -1;  // greedy / on_device: already chosen by the model
  if (greedy) {
    next_token = model.PrefillGreedy(prompt);
  } else if (on_device) {
    next_token = model.PrefillSample(prompt, sampler.NextDraw());
  } else {
    logits = model.Prefill(prompt);
  }
  result.prefill_ms = MsSince(t_start);

  StreamingDetokenizer detokenizer(tokenizer);
  StopMatcher stops(input.stop);
  const auto t_decode = Clock::now();
  int64_t index = -1;  // of the last token handed to the observer

  while (true) {
    if (observer.Cancelled()) {
      result.stop_reason = "cancelled";
      break;
    }
    if (Clock::now() >= input.deadline) {
      result.stop_reason = "timeout";
      break;
    }
    const int32_t token = greedy || on_device ? next_token : sampler.Sample(logits);
    if (on_device) sampler.Record(token);
    if (tokenizer.IsEndOfGeneration(token)) {
      result.stop_reason = "eos";
      break;
    }
    const std::string text = stops.Push(detokenizer.Push(token));
    ++index;
    ++result.tokens_out;
    if (result.ttft_ms < 0) result.ttft_ms = MsSince(t_start);
    if (!observer.OnToken(index, text)) {
      result.stop_reason = "client_gone";
      break;
    }
    if (stops.stopped()) {
      result.stop_reason = "stop";
      break;
    }
    if (result.tokens_out >= input.max_tokens) {
      result.stop_reason = "max_tokens";
      break;
    }
    // The token just sampled needs a KV position of its own to be evaluated.
    if (model.position() >= model.context_length()) {
      result.stop_reason = "context_full";
      break;
    }
    if (options.debug_token_delay.count() > 0)
      std::this_thread::sleep_for(options.debug_token_delay);
    if (greedy) {
      next_token = model.DecodeGreedy(token);
    } else if (on_device) {
      next_token = model.DecodeSample(token, sampler.NextDraw());
    } else {
      logits = model.Decode(token);
    }
  }
  result.decode_ms = MsSince(t_decode);

  // Text still held back (a partial character, a possible stop prefix) goes
  // out with the last token, unless the job ended abnormally or on a stop.
  if (result.stop_reason == "eos" || result.stop_reason == "max_tokens" ||
      result.stop_reason == "context_full") {
    std::string tail = stops.Push(detokenizer.Flush());
    if (stops.stopped()) {
      result.stop_reason = "stop";
    } else {
      tail += stops.Flush();
    }
    if (!tail.empty() && index >= 0 && !observer.OnToken(index, tail)) {
      result.stop_reason = "client_gone";
    }
  }
  return result;
}

}  // namespace orcd
