#include "host/server/anthropic_handlers.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <atomic>
#include <ctime>
#include <memory>
#include <optional>

#include "host/chat/output/chat_output_format.h"
#include "host/common/json_escape.h"
#include "host/common/status.h"
#include "host/server/anthropic_output.h"
#include "host/server/anthropic_request.h"
#include "host/server/chat_job_input.h"
#include "host/server/chat_reply_grammar.h"
#include "host/server/execute_handler.h"
#include "host/server/http_exchange.h"
#include "host/server/http_util.h"
#include "host/server/job_runner.h"
#include "host/server/openai_choice_observer.h"

namespace orcd {
namespace {

using Poco::Net::HTTPResponse;

std::string ErrorJson(const std::string& type, const std::string& message) {
  return "{\"type\":\"error\",\"error\":{\"type\":" + JsonQuote(type) +
         ",\"message\":" + JsonQuote(message) + "}}";
}

void SendError(Poco::Net::HTTPServerResponse& response, HTTPResponse::HTTPStatus status,
               const std::string& type, const std::string& message) {
  SendJson(response, status, ErrorJson(type, message));
}

// Feeds the model's text through the chat output parser into `output`.
class MessageObserver final : public GenerationObserver {
 public:
  MessageObserver(const JobTicket& ticket, ChatOutputParser& parser, AnthropicOutput& output,
                  SseWriter* writer, Poco::Net::HTTPServerRequest& request)
      : ticket_(ticket), parser_(parser), output_(output), writer_(writer), request_(request) {}
  bool OnToken(int64_t, const std::string& text) override {
    parser_.Push(text, output_);
    return !client_left();
  }
  bool Cancelled() override {
    if (!gone_ && ClientDisconnected(request_)) gone_ = true;
    return ticket_.cancelled() || client_left();
  }
  bool client_left() const { return gone_ || (writer_ != nullptr && !writer_->ok()); }

 private:
  const JobTicket& ticket_;
  ChatOutputParser& parser_;
  AnthropicOutput& output_;
  SseWriter* writer_;
  Poco::Net::HTTPServerRequest& request_;
  bool gone_ = false;
};

std::string StopReason(const GenerationResult& r, bool tool_use) {
  if (r.stop_reason == "max_tokens" || r.stop_reason == "context_full") return "max_tokens";
  if (r.stop_reason == "stop") return "stop_sequence";
  return tool_use ? "tool_use" : "end_turn";
}

class MessagesHandler : public Poco::Net::HTTPRequestHandler {
 public:
  MessagesHandler(WorkerState& s, bool count_only) : state_(s), count_only_(count_only) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override;

 private:
  WorkerState& state_;
  bool count_only_;
};

void MessagesHandler::handleRequest(Poco::Net::HTTPServerRequest& request,
                                    Poco::Net::HTTPServerResponse& response) {
  if (const std::optional<WorkerState::JobRefusal> refusal = RefuseNewJob(state_, response)) {
    SendError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "overloaded_error",
              refusal->message);
    return;
  }
  const std::optional<std::string> body = ReadBody(request, response);
  if (!body) return;
  auto parsed = ParseAnthropicRequest(*body, MakeRequestLimits(state_), count_only_);
  if (auto* e = std::get_if<ValidationError>(&parsed)) {
    state_.metrics.RecordRejected("invalid");
    SendError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error", e->message);
    return;
  }
  AnthropicRequest& req = std::get<AnthropicRequest>(parsed);
  GenerationInput input;
  ChatOutputFormat output_format = ChatOutputFormat::kPlain;
  try {
    ChatJobInput chat = MakeChatJobInput(*state_.service, req.chat, req.tools_enabled);
    input = std::move(chat.input);
    output_format = chat.format;
  } catch (const Error& e) {  // a role the template has no place for, or no template
    state_.metrics.RecordRejected("invalid");
    SendError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error", e.what());
    return;
  }
  const int64_t prompt_tokens = state_.service->CountTokens(input.prompt, input.add_special_tokens);
  if (count_only_) {
    SendJson(response, HTTPResponse::HTTP_OK,
             "{\"input_tokens\":" + std::to_string(prompt_tokens) + "}");
    return;
  }
  if (prompt_tokens > state_.service->max_prompt_tokens()) {
    SendError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
              "prompt is too long: " + std::to_string(prompt_tokens) + " tokens > " +
                  std::to_string(state_.service->max_prompt_tokens()) + " maximum");
    return;
  }
  input.max_tokens = req.max_tokens;
  input.grammar = ForcedToolCallGrammar(output_format, req.forced_tools);
  input.sampling = req.sampling;
  input.stop = req.stop;

  static std::atomic<uint64_t> counter{0};
  const std::string id =
      "msg_" + std::to_string(std::time(nullptr)) + "_" + std::to_string(++counter);
  const std::shared_ptr<JobTicket> ticket = state_.jobs.TryAcquire(id);
  if (!ticket) {
    SendError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "overloaded_error",
              RefuseBusy(state_, response));
    return;
  }
  JobLease lease(state_.jobs, ticket);
  const std::string model = req.model.empty() ? state_.service->facts().model_name : req.model;
  std::optional<SseWriter> writer;
  AnthropicOutput output;
  if (req.stream) {
    response.setChunkedTransferEncoding(true);
    response.setContentType("text/event-stream");
    response.set("Cache-Control", "no-cache");
    writer.emplace(&response.send());
    output = AnthropicOutput(
        [&writer](const std::string& name, const std::string& data) { writer->Event(name, data); });
    writer->Event("message_start",
                  "{\"type\":\"message_start\",\"message\":{\"id\":" + JsonQuote(id) +
                      ",\"type\":\"message\",\"role\":\"assistant\",\"model\":" + JsonQuote(model) +
                      ",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,"
                      "\"usage\":{\"input_tokens\":" +
                      std::to_string(prompt_tokens) + ",\"output_tokens\":0}}}");
  }
  const std::unique_ptr<ChatOutputParser> parser =
      MakeChatOutputParser(output_format, req.tools_enabled);
  MessageObserver observer(*ticket, *parser, output, writer ? &*writer : nullptr, request);
  const GenerationResult r = RunJob(state_, id, std::move(input), observer,
                                    [&observer] { return observer.client_left(); });
  lease.Release();  // before the answer's last bytes, as /execute
  parser->Finish(output);
  output.Finish();
  if (!IsNormalStop(r)) {
    const std::string message = r.error_message.empty() ? r.stop_reason : r.error_message;
    if (writer) {
      writer->Event("error", ErrorJson("api_error", message));
    } else if (r.error_code == "INVALID_REQUEST") {
      SendError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error", message);
    } else {
      SendError(response, HTTPResponse::HTTP_INTERNAL_SERVER_ERROR, "api_error", message);
    }
    return;
  }
  const std::string stop_reason = JsonQuote(StopReason(r, output.has_tool_use()));
  const std::string stop_sequence = r.stop_reason == "stop" ? JsonQuote(r.stop_string) : "null";
  if (writer) {
    writer->Event("message_delta",
                  "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":" + stop_reason +
                      ",\"stop_sequence\":" + stop_sequence +
                      "},\"usage\":{\"output_tokens\":" + std::to_string(r.tokens_out) + "}}");
    writer->Event("message_stop", "{\"type\":\"message_stop\"}");
    return;
  }
  SendJson(response, HTTPResponse::HTTP_OK,
           "{\"id\":" + JsonQuote(id) + ",\"type\":\"message\",\"role\":\"assistant\",\"model\":" +
               JsonQuote(model) + ",\"content\":" + output.ContentJson() +
               ",\"stop_reason\":" + stop_reason + ",\"stop_sequence\":" + stop_sequence +
               ",\"usage\":{\"input_tokens\":" + std::to_string(r.prompt_tokens) +
               ",\"output_tokens\":" + std::to_string(r.tokens_out) + "}}");
}

}  // namespace

Poco::Net::HTTPRequestHandler* CreateAnthropicHandler(WorkerState& state, const std::string& path) {
  if (path == "/v1/messages") return new MessagesHandler(state, false);
  if (path == "/v1/messages/count_tokens") return new MessagesHandler(state, true);
  return nullptr;
}

}  // namespace orcd
