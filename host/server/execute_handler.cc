#include "host/server/execute_handler.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <algorithm>

#include "host/common/logger.h"
#include "host/server/http_util.h"
#include "host/server/job_runner.h"
#include "host/server/sse_writer.h"

namespace orcd {
namespace {

using Poco::Net::HTTPResponse;

// Streams tokens as SSE and reports cancellation: by /cancel or a vanished client.
class SseObserver : public GenerationObserver {
 public:
  SseObserver(SseWriter& sse, JobSlot& slot) : sse_(sse), slot_(slot) {}
  bool OnToken(int64_t index, const std::string& text) override {
    return sse_.Send("token",
                     "{\"t\":\"" + JsonEscape(text) + "\",\"i\":" + std::to_string(index) + "}");
  }
  bool Cancelled() override { return slot_.cancel_requested(); }

 private:
  SseWriter& sse_;
  JobSlot& slot_;
};

}  // namespace

RequestLimits MakeRequestLimits(WorkerState& state) {
  RequestLimits limits;
  limits.max_tokens = std::min<int64_t>(2048, state.config.max_output_tokens);
  limits.vocab_size = state.service->facts().vocab_size;
  InferenceService* service = state.service;
  limits.count_tokens = [service](const std::string& s) { return service->CountTokens(s); };
  return limits;
}

std::pair<std::string, std::string> TerminalEvent(const GenerationResult& r) {
  if (IsNormalStop(r)) {
    return {"end", "{\"tokens_out\":" + std::to_string(r.tokens_out) +
                       ",\"decode_time_ms\":" + std::to_string(static_cast<int64_t>(r.decode_ms)) +
                       ",\"stop_reason\":\"" + r.stop_reason + "\"}"};
  }
  std::string code = r.error_code, message = r.error_message;
  bool retriable = false;
  if (r.stop_reason == "cancelled") {
    code = "CANCELLED";
    message = "job cancelled";
  } else if (r.stop_reason == "timeout") {
    code = "INFERENCE_TIMEOUT";
    message = "inference exceeded the configured timeout";
    retriable = true;
  } else if (code.empty()) {
    code = "INTERNAL";
  }
  if (code == "VRAM_OOM") retriable = true;
  return {"error", "{\"code\":\"" + code + "\",\"message\":\"" + JsonEscape(message) +
                       "\",\"retriable\":" + (retriable ? "true" : "false") + "}"};
}

void ExecuteHandler::handleRequest(Poco::Net::HTTPServerRequest& request,
                                   Poco::Net::HTTPServerResponse& response) {
  if (state_.shutting_down) {
    state_.metrics.RecordRejected("shutting_down");
    response.set("Retry-After", "5");
    SendError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "SHUTTING_DOWN",
              "the worker is shutting down", true);
    return;
  }
  const std::optional<std::string> body = ReadBody(request, response);
  if (!body) return;
  auto parsed = ParseExecuteRequest(*body, MakeRequestLimits(state_));
  if (auto* error = std::get_if<ValidationError>(&parsed)) {
    state_.metrics.RecordRejected("invalid");
    SendError(response, HTTPResponse::HTTP_BAD_REQUEST, "INVALID_REQUEST", error->message, false,
              error->field);
    return;
  }
  const ExecuteRequest& req = std::get<ExecuteRequest>(parsed);
  if (const int64_t n = state_.service->CountTokens(req.prompt);
      n > state_.service->max_prompt_tokens()) {
    state_.metrics.RecordRejected("invalid");
    SendError(response, HTTPResponse::HTTP_BAD_REQUEST, "INVALID_REQUEST",
              "prompt is " + std::to_string(n) + " tokens, the limit is " +
                  std::to_string(state_.service->max_prompt_tokens()),
              false, "prompt");
    return;
  }
  if (!state_.slot.TryAcquire(req.job_id)) {
    state_.metrics.RecordRejected("busy");
    response.set("Retry-After", "1");
    SendError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "WORKER_BUSY",
              "another inference is running", true);
    return;
  }
  JobSlotLease lease(state_.slot);
  response.setChunkedTransferEncoding(true);
  response.setContentType("text/event-stream");
  response.set("Cache-Control", "no-cache");
  response.set("X-Accel-Buffering", "no");
  SseWriter sse(response.send());
  sse.Send("started", "{\"job_id\":\"" + JsonEscape(req.job_id) + "\",\"model\":\"" +
                          JsonEscape(state_.service->facts().model_name) + "\",\"started_at\":\"" +
                          UtcNowIso8601() + "\",\"seed\":" + std::to_string(req.sampling.seed) +
                          "}");
  GenerationInput input;
  input.prompt = req.prompt;
  input.max_tokens = req.max_tokens;
  input.sampling = req.sampling;
  input.stop = req.stop;
  SseObserver observer(sse, state_.slot);
  const GenerationResult result =
      RunJob(state_, req.job_id, std::move(input), observer, [&] { return !sse.ok(); });
  const auto [event, data] = TerminalEvent(result);
  sse.Send(event, data);
}

}  // namespace orcd
