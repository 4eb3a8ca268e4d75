#include "host/server/responses_handlers.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <ctime>
#include <memory>
#include <optional>

#include "host/common/json_escape.h"
#include "host/common/status.h"
#include "host/server/chat_job_input.h"
#include "host/server/chat_reply_grammar.h"
#include "host/server/execute_handler.h"
#include "host/server/http_exchange.h"
#include "host/server/http_util.h"
#include "host/server/job_runner.h"
#include "host/server/openai_chat_output.h"
#include "host/server/openai_choice_observer.h"
#include "host/server/responses_output.h"
#include "host/server/responses_request.h"

namespace orcd {
namespace {

using Poco::Net::HTTPResponse;

// Feeds the model's text through the chat output parser into `output`,
// counting the tokens whose text was reasoning.
class ResponseObserver final : public GenerationObserver {
 public:
  ResponseObserver(const JobTicket& ticket, ChatOutputParser& parser, ResponsesOutput& output,
                   SseWriter* writer, Poco::Net::HTTPServerRequest& request)
      : ticket_(ticket), parser_(parser), output_(output), writer_(writer), request_(request) {}
  bool OnToken(int64_t, const std::string& text) override {
    const size_t before = output_.reasoning_bytes();
    parser_.Push(text, output_);
    if (output_.reasoning_bytes() != before) ++reasoning_tokens_;
    return !client_left();
  }
  bool Cancelled() override {
    if (!gone_ && ClientDisconnected(request_)) gone_ = true;
    return ticket_.cancelled() || client_left();
  }
  bool client_left() const { return gone_ || (writer_ != nullptr && !writer_->ok()); }
  int64_t reasoning_tokens() const { return reasoning_tokens_; }

 private:
  const JobTicket& ticket_;
  ChatOutputParser& parser_;
  ResponsesOutput& output_;
  SseWriter* writer_;
  Poco::Net::HTTPServerRequest& request_;
  bool gone_ = false;
  int64_t reasoning_tokens_ = 0;
};

// The response object: the request's settings echoed, and the members that
// change as it runs (status in_progress / completed / incomplete / failed,
// output, usage, error).
struct ResponseHead {
  const ResponsesRequest& req;
  std::string id, model;
  int64_t created_at = 0;

  std::string Json(const std::string& status, const std::string& output,
                   const std::string& usage = "null", const std::string& error = "null",
                   const std::string& incomplete = "null") const {
    return "{\"id\":" + JsonQuote(id) +
           ",\"object\":\"response\",\"created_at\":" + std::to_string(created_at) +
           ",\"status\":" + JsonQuote(status) + ",\"background\":false,\"error\":" + error +
           ",\"incomplete_details\":" + incomplete + ",\"instructions\":" + req.instructions_json +
           ",\"max_output_tokens\":" + std::to_string(req.max_output_tokens) +
           ",\"model\":" + JsonQuote(model) + ",\"output\":" + output +
           ",\"parallel_tool_calls\":" + (req.parallel_tool_calls ? "true" : "false") +
           ",\"previous_response_id\":null,\"reasoning\":{\"effort\":" + req.reasoning_effort_json +
           ",\"summary\":null},\"store\":false,\"temperature\":" +
           JsonNumber(req.sampling.temperature) + ",\"text\":{\"format\":" + req.text_format_json +
           "},\"tool_choice\":" + req.tool_choice_json + ",\"tools\":" + req.tools_json +
           ",\"top_p\":" + JsonNumber(req.sampling.top_p) +
           ",\"truncation\":\"disabled\",\"usage\":" + usage +
           ",\"user\":null,\"metadata\":" + req.metadata_json + "}";
  }

  static std::string JsonNumber(double v) {
    std::string s = std::to_string(v);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
  }
};

class ResponsesHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit ResponsesHandler(WorkerState& s) : state_(s) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override;

 private:
  WorkerState& state_;
};

void ResponsesHandler::handleRequest(Poco::Net::HTTPServerRequest& request,
                                     Poco::Net::HTTPServerResponse& response) {
  if (const std::optional<WorkerState::JobRefusal> refusal = RefuseNewJob(state_, response)) {
    SendOpenAiError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "server_error",
                    std::string(refusal->openai_code), refusal->message);
    return;
  }
  const std::optional<std::string> body = ReadBody(request, response);
  if (!body) return;
  auto parsed = ParseResponsesRequest(*body, MakeRequestLimits(state_));
  if (auto* e = std::get_if<ValidationError>(&parsed)) {
    state_.metrics.RecordRejected("invalid");
    SendOpenAiError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
                    "invalid_request", e->message, e->field);
    return;
  }
  const ResponsesRequest& req = std::get<ResponsesRequest>(parsed);
  ChatJobInput chat;
  try {
    chat = MakeChatJobInput(*state_.service, req.chat, req.tools_enabled);
  } catch (const Error& e) {  // a role the template has no place for, or no template
    state_.metrics.RecordRejected("invalid");
    SendOpenAiError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
                    "invalid_request", e.what(), "input");
    return;
  }
  GenerationInput& input = chat.input;
  input.max_tokens = req.max_output_tokens;
  input.sampling = req.sampling;
  try {  // as on /v1/chat/completions
    input.grammar = ChatReplyGrammar(chat.format, req.grammar, req.json_schema, req.forced_tools,
                                     req.callable_tools);
  } catch (const Error& e) {
    SendOpenAiError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
                    "invalid_request", e.what(), "text.format");
    return;
  }
  if (const int64_t n = state_.service->CountTokens(input.prompt, input.add_special_tokens);
      n > state_.service->max_prompt_tokens()) {
    SendOpenAiError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
                    "context_length_exceeded",
                    "the input is " + std::to_string(n) + " tokens, the limit is " +
                        std::to_string(state_.service->max_prompt_tokens()),
                    "input");
    return;
  }
  const ResponseHead head{req, NewCallId("resp_"),
                          req.model.empty() ? state_.service->facts().model_name : req.model,
                          static_cast<int64_t>(std::time(nullptr))};
  const std::shared_ptr<JobTicket> ticket = state_.jobs.TryAcquire(head.id);
  if (!ticket) {
    SendOpenAiError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "server_error", "worker_busy",
                    RefuseBusy(state_, response));
    return;
  }
  JobLease lease(state_.jobs, ticket);
  std::optional<SseWriter> writer;
  ResponsesOutput output;
  if (req.stream) {
    response.setChunkedTransferEncoding(true);
    response.setContentType("text/event-stream");
    response.set("Cache-Control", "no-cache");
    writer.emplace(&response.send());
    output = ResponsesOutput(
        [&writer](const std::string& type, const std::string& data) { writer->Event(type, data); });
    output.Event("response.created", "\"response\":" + head.Json("in_progress", "[]"));
    output.Event("response.in_progress", "\"response\":" + head.Json("in_progress", "[]"));
  }
  const std::unique_ptr<ChatOutputParser> parser =
      MakeChatOutputParser(chat.format, req.tools_enabled);
  ResponseObserver observer(*ticket, *parser, output, writer ? &*writer : nullptr, request);
  const GenerationResult r = RunJob(state_, head.id, std::move(input), observer,
                                    [&observer] { return observer.client_left(); });
  lease.Release();  // before the answer's last bytes, as /execute
  parser->Finish(output);
  const bool cut_short = r.stop_reason == "max_tokens" || r.stop_reason == "context_full";
  output.Finish(IsNormalStop(r) && !cut_short);
  if (!IsNormalStop(r)) {
    const std::string message = r.error_message.empty() ? r.stop_reason : r.error_message;
    if (writer) {
      const std::string code = r.error_code.empty() ? r.stop_reason : r.error_code;
      output.Event("response.failed",
                   "\"response\":" + head.Json("failed", output.OutputJson(), "null",
                                               "{\"code\":" + JsonQuote(code) +
                                                   ",\"message\":" + JsonQuote(message) + "}"));
    } else if (r.error_code == "INVALID_REQUEST") {  // e.g. more KV than the pool holds
      SendOpenAiError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
                      "invalid_request", message);
    } else {
      SendOpenAiError(response, HTTPResponse::HTTP_INTERNAL_SERVER_ERROR, "server_error",
                      r.stop_reason, message);
    }
    return;
  }
  const std::string usage =
      "{\"input_tokens\":" + std::to_string(r.prompt_tokens) +
      ",\"input_tokens_details\":{\"cached_tokens\":" + std::to_string(r.cached_tokens) +
      "},\"output_tokens\":" + std::to_string(r.tokens_out) +
      ",\"output_tokens_details\":{\"reasoning_tokens\":" +
      std::to_string(observer.reasoning_tokens()) +
      "},\"total_tokens\":" + std::to_string(r.prompt_tokens + r.tokens_out) + "}";
  const std::string status = cut_short ? "incomplete" : "completed";
  const std::string incomplete =
      cut_short ? "{\"reason\":\"max_output_tokens\"}" : std::string("null");
  const std::string final_json = head.Json(status, output.OutputJson(), usage, "null", incomplete);
  if (writer) {
    output.Event(cut_short ? "response.incomplete" : "response.completed",
                 "\"response\":" + final_json);
    return;
  }
  SendJson(response, HTTPResponse::HTTP_OK, final_json);
}

}  // namespace

Poco::Net::HTTPRequestHandler* CreateResponsesHandler(WorkerState& state, const std::string& path) {
  return path == "/v1/responses" ? new ResponsesHandler(state) : nullptr;
}

}  // namespace orcd
