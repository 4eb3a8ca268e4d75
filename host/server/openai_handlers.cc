#include "host/server/openai_handlers.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <algorithm>
#include <atomic>
#include <ctime>
#include <functional>
#include <span>
#include <vector>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/server/execute_handler.h"
#include "host/server/http_exchange.h"
#include "host/server/http_util.h"
#include "host/server/job_runner.h"
#include "host/server/openai_chat_output.h"
#include "host/server/openai_logprobs.h"
#include "host/server/openai_request.h"

namespace orcd {
namespace {

using Poco::Net::HTTPResponse;

std::string Q(const std::string& s) { return "\"" + JsonEscape(s) + "\""; }

void SendOpenAiError(Poco::Net::HTTPServerResponse& response, HTTPResponse::HTTPStatus status,
                     const std::string& type, const std::string& code, const std::string& message,
                     const std::string& param = "") {
  SendJson(response, status,
           "{\"error\":{\"message\":" + Q(message) + ",\"type\":" + Q(type) +
               ",\"param\":" + (param.empty() ? "null" : Q(param)) + ",\"code\":" + Q(code) + "}}");
}

std::string NewId(const char* prefix) {
  static std::atomic<uint64_t> counter{0};
  return std::string(prefix) + std::to_string(std::time(nullptr)) + "-" + std::to_string(++counter);
}

std::string FinishReason(const GenerationResult& r, bool tool_calls) {
  if (r.stop_reason == "max_tokens" || r.stop_reason == "context_full") return "length";
  return tool_calls ? "tool_calls" : "stop";
}

// Collects text, or streams it as OpenAI chunks ("data: {...}\n\n").
class OpenAiObserver : public GenerationObserver {
 public:
  // `client_gone` is polled between tokens and during the prefill: a
  // vanished client is otherwise noticed only at the next write.
  OpenAiObserver(const JobTicket& ticket, std::ostream* stream, std::string chunk_prefix, bool chat,
                 std::function<bool()> client_gone)
      : ticket_(ticket),
        stream_(stream),
        prefix_(std::move(chunk_prefix)),
        chat_(chat),
        client_gone_(std::move(client_gone)) {}

  // Chat: generated text goes through the format's parser into `output`.
  void SetChatOutput(ChatOutputParser* parser, OpenAiChatOutput* output) {
    parser_ = parser;
    output_ = output;
  }
  // Logprobs asked for: tokens' entries rendered with `tokenizer`.
  void SetLogprobs(const Tokenizer* tokenizer) { tokenizer_ = tokenizer; }

  void OnLogprobs(int64_t, const TokenLogprobs& logprobs) override {
    logprobs_.push_back(logprobs);
  }

  bool OnToken(int64_t index, const std::string& text) override {
    // The logprobs of the tokens up to this one (a held-back token's text
    // comes with its own index, after the next token's logprobs).
    const size_t ready = std::min(logprobs_.size(), static_cast<size_t>(index + 1));
    const std::span<const TokenLogprobs> fresh(logprobs_.data() + sent_, ready - sent_);
    if (parser_ != nullptr) {
      parser_->Push(text, *output_);
      if (stream_ && tokenizer_ && !fresh.empty()) {
        Chunk("{\"delta\":{},\"logprobs\":" + ChatLogprobsJson(*tokenizer_, fresh) +
              ",\"index\":0,\"finish_reason\":null}");
        sent_ = ready;
      }
      return ok_;
    }
    if (!stream_) {
      text_ += text;
      return true;
    }
    if (text.empty() && (tokenizer_ == nullptr || fresh.empty())) return ok_;
    std::string logprobs = "null";
    if (tokenizer_ != nullptr) {
      logprobs = CompletionLogprobsJson(*tokenizer_, fresh, &text_offset_);
      sent_ = ready;
    }
    return Chunk(chat_ ? "{\"delta\":{\"content\":" + Q(text) +
                             "},\"index\":0,\"finish_reason\":null}"
                       : "{\"text\":" + Q(text) + ",\"index\":0,\"logprobs\":" + logprobs +
                             ",\"finish_reason\":null}");
  }
  // The whole job's logprobs for a non-streamed answer ("null" when not asked).
  std::string AllLogprobs() {
    if (tokenizer_ == nullptr) return "null";
    if (chat_) return ChatLogprobsJson(*tokenizer_, logprobs_);
    int64_t offset = 0;
    return CompletionLogprobsJson(*tokenizer_, logprobs_, &offset);
  }
  bool Cancelled() override {
    if (ok_ && client_gone_()) ok_ = false;
    return ticket_.cancelled() || !ok_;
  }

  bool Chunk(const std::string& choice) { return Data(prefix_ + choice + "]}"); }
  bool Data(const std::string& payload) {
    if (!ok_) return false;
    try {
      *stream_ << "data: " << payload << "\n\n";
      stream_->flush();
      ok_ = stream_->good();
    } catch (const std::exception&) {
      ok_ = false;
    }
    return ok_;
  }
  bool ok() const { return ok_; }
  const std::string& text() const { return text_; }

 private:
  const JobTicket& ticket_;
  std::ostream* stream_;
  std::string prefix_;
  bool chat_;
  std::function<bool()> client_gone_;
  bool ok_ = true;
  std::string text_;
  ChatOutputParser* parser_ = nullptr;
  OpenAiChatOutput* output_ = nullptr;
  const Tokenizer* tokenizer_ = nullptr;
  std::vector<TokenLogprobs> logprobs_;  // every generated token's, in order
  size_t sent_ = 0;                      // of which streamed
  int64_t text_offset_ = 0;              // completions: bytes of text streamed
};

class ModelsHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit ModelsHandler(WorkerState& s) : state_(s) {}
  void handleRequest(Poco::Net::HTTPServerRequest&,
                     Poco::Net::HTTPServerResponse& response) override {
    if (!state_.model_loaded()) {
      response.set("Retry-After", "1");
      SendOpenAiError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "server_error", "not_ready",
                      "the model is still loading");
      return;
    }
    SendJson(response, HTTPResponse::HTTP_OK,
             "{\"object\":\"list\",\"data\":[{\"id\":" + Q(state_.service->facts().model_name) +
                 ",\"object\":\"model\",\"created\":0,\"owned_by\":\"orcd\"}]}");
  }

 private:
  WorkerState& state_;
};

class CompletionHandler : public Poco::Net::HTTPRequestHandler {
 public:
  CompletionHandler(WorkerState& s, bool chat) : state_(s), chat_(chat) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override;

 private:
  WorkerState& state_;
  bool chat_;
};

void CompletionHandler::handleRequest(Poco::Net::HTTPServerRequest& request,
                                      Poco::Net::HTTPServerResponse& response) {
  if (const std::optional<WorkerState::JobRefusal> refusal = state_.Refusal()) {
    state_.metrics.RecordRejected(std::string(refusal->metric));
    if (refusal->retry_after_s > 0)
      response.set("Retry-After", std::to_string(refusal->retry_after_s));
    SendOpenAiError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "server_error",
                    std::string(refusal->openai_code), refusal->message);
    return;
  }
  const std::optional<std::string> body = ReadBody(request, response);
  if (!body) return;
  auto parsed = ParseOpenAiRequest(*body, chat_, MakeRequestLimits(state_));
  if (auto* e = std::get_if<ValidationError>(&parsed)) {
    state_.metrics.RecordRejected("invalid");
    SendOpenAiError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
                    "invalid_request", e->message, e->field);
    return;
  }
  OpenAiRequest& req = std::get<OpenAiRequest>(parsed);
  GenerationInput input;
  ChatOutputFormat output_format = ChatOutputFormat::kPlain;
  try {
    if (chat_) {
      ChatPrompt prompt = state_.service->ApplyChatTemplate(req.chat_request);
      input.prompt = std::move(prompt.text);
      input.add_special_tokens = prompt.add_special_tokens;
      output_format = prompt.output_format;
      if (req.tools_enabled || output_format == ChatOutputFormat::kHarmony) {
        for (const std::string_view token : ChatOutputMarkupTokens(output_format)) {
          input.render_special.emplace_back(token);
        }
      }
    } else {
      input.prompt = req.prompt;
    }
  } catch (const Error& e) {  // a role the template has no place for, or no template at all
    state_.metrics.RecordRejected("invalid");
    SendOpenAiError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
                    "invalid_request", e.what(), "messages");
    return;
  }
  input.max_tokens = req.max_tokens;
  input.sampling = req.sampling;
  input.stop = req.stop;
  input.cache_salt = req.cache_salt;
  input.top_logprobs = req.top_logprobs;
  if (const int64_t n = state_.service->CountTokens(input.prompt, input.add_special_tokens);
      n > state_.service->max_prompt_tokens()) {
    SendOpenAiError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
                    "context_length_exceeded",
                    "the prompt is " + std::to_string(n) + " tokens, the limit is " +
                        std::to_string(state_.service->max_prompt_tokens()),
                    chat_ ? "messages" : "prompt");
    return;
  }
  const std::string id = NewId(chat_ ? "chatcmpl-" : "cmpl-");
  const std::shared_ptr<JobTicket> ticket = state_.jobs.TryAcquire(id);
  if (!ticket) {
    state_.metrics.RecordRejected("busy");
    response.set("Retry-After", "1");
    SendOpenAiError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "server_error", "worker_busy",
                    state_.BusyMessage() + "; retry later");
    return;
  }
  JobLease lease(state_.jobs, ticket);
  const std::string model = state_.service->facts().model_name;
  const std::string object =
      chat_ ? (req.stream ? "chat.completion.chunk" : "chat.completion") : "text_completion";
  const std::string head = "{\"id\":" + Q(id) + ",\"object\":" + Q(object) +
                           ",\"created\":" + std::to_string(std::time(nullptr)) +
                           ",\"model\":" + Q(model);
  std::ostream* stream = nullptr;
  if (req.stream) {
    response.setChunkedTransferEncoding(true);
    response.setContentType("text/event-stream");
    response.set("Cache-Control", "no-cache");
    stream = &response.send();
  }
  OpenAiObserver observer(*ticket, stream, head + ",\"choices\":[", chat_,
                          [&request] { return ClientDisconnected(request); });
  if (req.top_logprobs >= 0) observer.SetLogprobs(state_.service->tokenizer());
  const std::unique_ptr<ChatOutputParser> parser =
      MakeChatOutputParser(output_format, req.tools_enabled);
  OpenAiChatOutput chat_output;
  if (chat_) {
    if (req.stream) {
      chat_output = OpenAiChatOutput([&observer](const std::string& c) { observer.Chunk(c); });
      observer.Chunk(
          "{\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"index\":0,\"finish_reason\":"
          "null}");
    }
    observer.SetChatOutput(parser.get(), &chat_output);
  }
  const GenerationResult r =
      RunJob(state_, id, std::move(input), observer, [&] { return !observer.ok(); });
  if (chat_) parser->Finish(chat_output);
  const std::string usage = ",\"usage\":{\"prompt_tokens\":" + std::to_string(r.prompt_tokens) +
                            ",\"completion_tokens\":" + std::to_string(r.tokens_out) +
                            ",\"total_tokens\":" + std::to_string(r.prompt_tokens + r.tokens_out) +
                            "}";
  if (!IsNormalStop(r)) {
    const auto [event, data] = TerminalEvent(r);
    (void)event;
    if (req.stream) {
      observer.Data("{\"error\":" + data + "}");
    } else if (r.error_code == "INVALID_REQUEST") {  // e.g. more KV than the pool holds
      SendOpenAiError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
                      "invalid_request", r.error_message);
    } else {
      SendOpenAiError(response, HTTPResponse::HTTP_INTERNAL_SERVER_ERROR, "server_error",
                      r.stop_reason, r.error_message.empty() ? r.stop_reason : r.error_message);
    }
    return;
  }
  const std::string finish = Q(FinishReason(r, chat_output.has_tool_calls()));
  if (req.stream) {
    // OpenAI's shape: usage only when asked for, in a last chunk of its own
    // with no choices.
    observer.Data(
        head + ",\"choices\":[" +
        (chat_ ? "{\"delta\":{},\"index\":0,\"finish_reason\":" + finish + "}"
               : "{\"text\":\"\",\"index\":0,\"logprobs\":null,\"finish_reason\":" + finish + "}") +
        "]}");
    if (req.include_usage) observer.Data(head + ",\"choices\":[]" + usage + "}");
    observer.Data("[DONE]");
    return;
  }
  const std::string logprobs = observer.AllLogprobs();
  const std::string choice =
      chat_ ? "{\"index\":0,\"message\":" + chat_output.MessageJson() +
                  ",\"logprobs\":" + logprobs + ",\"finish_reason\":" + finish + "}"
            : "{\"text\":" + Q(observer.text()) + ",\"index\":0,\"logprobs\":" + logprobs +
                  ",\"finish_reason\":" + finish + "}";
  SendJson(response, HTTPResponse::HTTP_OK, head + ",\"choices\":[" + choice + "]" + usage + "}");
}

}  // namespace

Poco::Net::HTTPRequestHandler* CreateOpenAiHandler(WorkerState& state, const std::string& method,
                                                   const std::string& path) {
  if (path == "/v1/models" && method == "GET") return new ModelsHandler(state);
  if (path == "/v1/completions" && method == "POST") return new CompletionHandler(state, false);
  if (path == "/v1/chat/completions" && method == "POST") return new CompletionHandler(state, true);
  return nullptr;
}

}  // namespace orcd
