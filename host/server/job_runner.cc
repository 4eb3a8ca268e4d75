#include "host/server/job_runner.h"

#include <Poco/DigestEngine.h>
#include <Poco/SHA2Engine.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "host/common/logger.h"
#include "host/server/execute_request.h"

namespace orcd {

bool IsNormalStop(const GenerationResult& r) {
  return r.stop_reason == "eos" || r.stop_reason == "max_tokens" || r.stop_reason == "stop" ||
         r.stop_reason == "context_full";
}

std::string JobOutcome(const GenerationResult& r) {
  return IsNormalStop(r) ? "completed" : r.stop_reason;
}

std::string Sha256Hex(const std::string& text) {
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  sha.update(text);
  return Poco::DigestEngine::digestToHex(sha.digest());
}

namespace {

// Passes everything through and notes when each token went out.
class TimedObserver final : public GenerationObserver {
 public:
  explicit TimedObserver(GenerationObserver& inner) : inner_(inner) {}
  bool OnToken(int64_t index, const std::string& text) override {
    const auto now = std::chrono::steady_clock::now();
    if (index > 0)
      gaps_ms.push_back(std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
    return inner_.OnToken(index, text);
  }
  void OnLogprobs(int64_t index, const TokenLogprobs& logprobs) override {
    inner_.OnLogprobs(index, logprobs);
  }
  bool Cancelled() override { return inner_.Cancelled(); }
  std::vector<double> gaps_ms;

 private:
  GenerationObserver& inner_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace

GenerationResult RunJob(WorkerState& state, const std::string& job_id, GenerationInput input,
                        GenerationObserver& observer, const std::function<bool()>& client_gone) {
  // Never the prompt itself (it may hold personal data): its digest and
  // length identify it well enough to correlate a report.
  LogInfo("execute_start", "job started",
          {{"job_id", job_id},
           {"prompt_sha256", Sha256Hex(input.prompt)},
           {"prompt_chars", std::to_string(CountUtf8CodePoints(input.prompt).value_or(-1))},
           {"seed", std::to_string(input.sampling.seed)},
           {"max_tokens", std::to_string(input.max_tokens)}});
  const auto timeout =
      std::chrono::steady_clock::now() +
      std::chrono::milliseconds(static_cast<int64_t>(state.config.inference_timeout_s * 1000));
  input.deadline = std::min(input.deadline, timeout);  // a request's X-Deadline may be sooner
  const auto t0 = std::chrono::steady_clock::now();
  TimedObserver timed(observer);
  GenerationResult result = state.service->Generate(input, timed);
  const double total_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (client_gone && client_gone()) result.stop_reason = "client_gone";

  JobMetrics jm;
  jm.outcome = JobOutcome(result);
  jm.prompt_tokens = result.prompt_tokens;
  jm.tokens_out = result.tokens_out;
  jm.inference_ms = total_ms;
  jm.ttft_ms = result.ttft_ms;
  jm.queue_ms = result.queue_ms;
  jm.token_gaps_ms = std::move(timed.gaps_ms);
  jm.decode_tokens_per_second =
      result.decode_ms > 0 ? static_cast<double>(result.tokens_out) * 1000.0 / result.decode_ms : 0;
  state.metrics.RecordJob(jm);
  const uint64_t vram = state.service->VramBytesUsed();
  state.metrics.SetVramBytes(vram);
  // The spec's log field names (WORK-3080).
  LogFields fields = {{"job_id", job_id},
                      {"outcome", jm.outcome},
                      {"stop_reason", result.stop_reason},
                      {"tokens_in", std::to_string(result.prompt_tokens)},
                      {"tokens_out", std::to_string(result.tokens_out)},
                      {"decode_time_ms", std::to_string(static_cast<int64_t>(result.decode_ms))},
                      {"prefill_time_ms", std::to_string(static_cast<int64_t>(result.prefill_ms))},
                      {"inference_ms", std::to_string(static_cast<int64_t>(total_ms))},
                      {"vram_bytes", std::to_string(vram)}};
  if (result.ttft_ms >= 0) {
    fields.emplace_back("first_token_ms", std::to_string(static_cast<int64_t>(result.ttft_ms)));
  }
  if (result.stop_reason == "error") {
    fields.emplace_back("error_code", result.error_code);
    LogError("error", result.error_message, fields);
  }
  LogInfo("execute_end", "job finished", fields);
  return result;
}

std::optional<WorkerState::JobRefusal> RefuseNewJob(WorkerState& state,
                                                    Poco::Net::HTTPServerResponse& response) {
  std::optional<WorkerState::JobRefusal> refusal = state.Refusal();
  if (!refusal) return refusal;
  state.metrics.RecordRejected(std::string(refusal->metric));
  if (refusal->retry_after_s > 0)
    response.set("Retry-After", std::to_string(refusal->retry_after_s));
  return refusal;
}

std::string RefuseBusy(WorkerState& state, Poco::Net::HTTPServerResponse& response) {
  state.metrics.RecordRejected("busy");
  response.set("Retry-After", "1");
  return state.BusyMessage() + "; retry later";
}

}  // namespace orcd
