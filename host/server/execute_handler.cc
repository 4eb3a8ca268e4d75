#include "host/server/execute_handler.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <algorithm>

#include "host/common/logger.h"
#include "host/server/deadline_header.h"
#include "host/server/http_exchange.h"
#include "host/server/http_util.h"
#include "host/server/job_runner.h"
#include "host/server/sse_writer.h"

namespace orcd {
namespace {

using Poco::Net::HTTPResponse;

// Streams tokens as SSE and reports cancellation: by /cancel, or a client
// that closed its connection (polled on the socket, so that it is noticed
// during a long prefill, before any token is written).
class SseObserver : public GenerationObserver {
 public:
  SseObserver(SseWriter& sse, const JobTicket& ticket, const Poco::Net::HTTPServerRequest& request)
      : sse_(sse), ticket_(ticket), request_(request) {}
  bool OnToken(int64_t index, const std::string& text) override {
    return sse_.Send("token",
                     "{\"t\":\"" + JsonEscape(text) + "\",\"i\":" + std::to_string(index) + "}");
  }
  bool Cancelled() override {
    if (ticket_.cancelled()) return true;
    if (!gone_ && ClientDisconnected(request_)) gone_ = true;
    return gone_;
  }
  bool client_gone() const { return gone_ || !sse_.ok(); }

 private:
  SseWriter& sse_;
  const JobTicket& ticket_;
  const Poco::Net::HTTPServerRequest& request_;
  bool gone_ = false;
};

// The job's deadline from X-Deadline, or max() without one. Answers the
// request itself (400 malformed, 504 already passed) and returns nullopt
// when it must not run.
std::optional<std::chrono::steady_clock::time_point> RequestDeadline(
    WorkerState& state, Poco::Net::HTTPServerRequest& request,
    Poco::Net::HTTPServerResponse& response, const std::string& job_id) {
  if (!request.has("X-Deadline")) return std::chrono::steady_clock::time_point::max();
  const std::string value = request.get("X-Deadline");
  const auto deadline = ParseDeadlineHeader(value);
  if (!deadline) {
    state.metrics.RecordRejected("invalid");
    SendError(response, HTTPResponse::HTTP_BAD_REQUEST, "INVALID_REQUEST",
              "X-Deadline must be an RFC 3339 timestamp or milliseconds since the Unix epoch",
              false, "X-Deadline");
    return std::nullopt;
  }
  const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
      *deadline - std::chrono::system_clock::now());
  state.metrics.RecordDeadlineRemaining(static_cast<double>(remaining.count()));
  LogInfo("deadline", "request carries X-Deadline",
          {{"job_id", job_id}, {"remaining_ms", std::to_string(remaining.count())}});
  if (remaining.count() <= 0) {
    state.metrics.RecordRejected("timeout");
    SendError(response, HTTPResponse::HTTP_GATEWAY_TIMEOUT, "INFERENCE_TIMEOUT",
              "the request's X-Deadline passed before the job could start", false);
    return std::nullopt;
  }
  return SteadyDeadline(remaining);
}

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
    message = "inference exceeded its deadline (limits.inference_timeout_s or X-Deadline)";
    retriable = true;
  } else if (code.empty()) {
    code = "INTERNAL";
  }
  // Another worker (or this one, later) can run the job.
  if (code == "VRAM_OOM" || code == "VRAM_RESIDENCY_LOST") retriable = true;
  return {"error", "{\"code\":\"" + code + "\",\"message\":\"" + JsonEscape(message) +
                       "\",\"retriable\":" + (retriable ? "true" : "false") + "}"};
}

bool RefuseUnlessAccepting(WorkerState& state, Poco::Net::HTTPServerResponse& response) {
  const std::optional<WorkerState::JobRefusal> refusal = state.Refusal();
  if (!refusal) return false;
  state.metrics.RecordRejected(std::string(refusal->metric));
  if (refusal->retry_after_s > 0)
    response.set("Retry-After", std::to_string(refusal->retry_after_s));
  SendError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, std::string(refusal->code),
            refusal->message, true);
  return true;
}

void ExecuteHandler::handleRequest(Poco::Net::HTTPServerRequest& request,
                                   Poco::Net::HTTPServerResponse& response) {
  if (RefuseUnlessAccepting(state_, response)) return;
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
  if (!req.unknown_fields.empty()) {
    state_.metrics.RecordUnknownFields(req.unknown_fields.size());
    for (const std::string& name : req.unknown_fields) {
      LogDebug("unknown_field", "ignored a request field this worker does not know",
               {{"job_id", req.job_id}, {"field", name.substr(0, 64)}});
    }
  }
  const auto deadline = RequestDeadline(state_, request, response, req.job_id);
  if (!deadline) return;
  if (const int64_t n = state_.service->CountTokens(req.prompt);
      n > state_.service->max_prompt_tokens()) {
    state_.metrics.RecordRejected("invalid");
    SendError(response, HTTPResponse::HTTP_BAD_REQUEST, "INVALID_REQUEST",
              "prompt is " + std::to_string(n) + " tokens, the limit is " +
                  std::to_string(state_.service->max_prompt_tokens()),
              false, "prompt");
    return;
  }
  const std::shared_ptr<JobTicket> ticket = state_.jobs.TryAcquire(req.job_id);
  if (!ticket) {
    state_.metrics.RecordRejected("busy");
    response.set("Retry-After", "1");
    SendError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "WORKER_BUSY", state_.BusyMessage(),
              true);
    return;
  }
  JobLease lease(state_.jobs, ticket);
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
  input.cache_salt = req.cache_salt;
  input.grammar = req.grammar;
  input.deadline = *deadline;
  SseObserver observer(sse, *ticket, request);
  const GenerationResult result = RunJob(state_, req.job_id, std::move(input), observer,
                                         [&] { return observer.client_gone(); });
  const auto [event, data] = TerminalEvent(result);
  // Free before the terminal event: a client that reads it and sends the
  // next job at once must find the worker ready, not busy.
  lease.Release();
  sse.Send(event, data);
}

}  // namespace orcd
