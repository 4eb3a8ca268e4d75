#include "host/server/openai_handlers.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <atomic>
#include <ctime>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "host/common/json_escape.h"
#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/server/chat_job_input.h"
#include "host/server/chat_reply_grammar.h"
#include "host/server/execute_handler.h"
#include "host/server/http_exchange.h"
#include "host/server/http_util.h"
#include "host/server/job_runner.h"
#include "host/server/openai_chat_output.h"
#include "host/server/openai_choice_observer.h"
#include "host/server/openai_request.h"

namespace orcd {
namespace {

using Poco::Net::HTTPResponse;

std::string NewId(const char* prefix) {
  static std::atomic<uint64_t> counter{0};
  return std::string(prefix) + std::to_string(std::time(nullptr)) + "-" + std::to_string(++counter);
}

std::string FinishReason(const GenerationResult& r, bool tool_calls) {
  if (r.stop_reason == "max_tokens" || r.stop_reason == "context_full") return "length";
  return tool_calls ? "tool_calls" : "stop";
}

// Choice i's seed: the request's for the first (n = 1 is unchanged), a
// SplitMix64 step from it for the others: a seeded request reproduces all.
uint64_t ChoiceSeed(uint64_t seed, int choice) {
  if (choice == 0) return seed;
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(choice);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

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
    SendJson(
        response, HTTPResponse::HTTP_OK,
        "{\"object\":\"list\",\"data\":[{\"id\":" + JsonQuote(state_.service->facts().model_name) +
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
  if (const std::optional<WorkerState::JobRefusal> refusal = RefuseNewJob(state_, response)) {
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
      ChatJobInput chat = MakeChatJobInput(*state_.service, req.chat_request, req.tools_enabled);
      input = std::move(chat.input);
      output_format = chat.format;
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
  input.grammar = req.grammar;
  // Chat: tool_choice "required" / a named function hold the reply to one
  // call in the format's own text, response_format to the JSON answer (on
  // harmony after a free analysis message), or to either with tools "auto".
  if (chat_) {
    try {
      input.grammar = ChatReplyGrammar(output_format, req.grammar, req.json_schema,
                                       req.forced_tools, req.callable_tools);
    } catch (const Error& e) {
      SendOpenAiError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
                      "invalid_request", e.what(), "response_format");
      return;
    }
  }
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
    SendOpenAiError(response, HTTPResponse::HTTP_SERVICE_UNAVAILABLE, "server_error", "worker_busy",
                    RefuseBusy(state_, response));
    return;
  }
  JobLease lease(state_.jobs, ticket);
  const std::string model = state_.service->facts().model_name;
  const std::string object =
      chat_ ? (req.stream ? "chat.completion.chunk" : "chat.completion") : "text_completion";
  const std::string head = "{\"id\":" + JsonQuote(id) + ",\"object\":" + JsonQuote(object) +
                           ",\"created\":" + std::to_string(std::time(nullptr)) +
                           ",\"model\":" + JsonQuote(model);
  std::optional<SseWriter> writer;
  if (req.stream) {
    response.setChunkedTransferEncoding(true);
    response.setContentType("text/event-stream");
    response.set("Cache-Control", "no-cache");
    writer.emplace(&response.send());
  }
  // Each choice a sequence of its own (n > 1: generated at once, on their
  // own threads; the CUDA backend takes them in turn).
  struct Choice {
    std::unique_ptr<OpenAiChoiceObserver> observer;
    std::unique_ptr<ChatOutputParser> parser;
    OpenAiChatOutput output;
    GenerationResult result;
  };
  std::vector<Choice> choices(static_cast<size_t>(req.n));
  for (int c = 0; c < req.n; ++c) {
    Choice& choice = choices[static_cast<size_t>(c)];
    choice.observer = std::make_unique<OpenAiChoiceObserver>(
        *ticket, writer ? &*writer : nullptr, head + ",\"choices\":[", chat_, c,
        [&request] { return ClientDisconnected(request); });
    if (req.top_logprobs >= 0) choice.observer->SetLogprobs(state_.service->tokenizer());
    if (!chat_) continue;
    choice.parser = MakeChatOutputParser(output_format, req.tools_enabled);
    if (req.stream) {
      OpenAiChoiceObserver* observer = choice.observer.get();
      choice.output =
          OpenAiChatOutput([observer](const std::string& delta) { observer->Chunk(delta); }, c);
      observer->Chunk("{\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"index\":" +
                      std::to_string(c) + ",\"finish_reason\":null}");
    }
    choice.observer->SetChatOutput(choice.parser.get(), &choice.output);
  }
  auto run = [&](int c) {
    Choice& choice = choices[static_cast<size_t>(c)];
    GenerationInput choice_input = input;
    choice_input.sampling.seed = ChoiceSeed(input.sampling.seed, c);
    OpenAiChoiceObserver& observer = *choice.observer;
    choice.result =
        RunJob(state_, req.n > 1 ? id + "/" + std::to_string(c) : id, std::move(choice_input),
               observer, [&observer] { return observer.client_left(); });
    if (chat_) choice.parser->Finish(choice.output);
  };
  if (req.n > 1 && state_.service->serving().prefix_cache) {
    // Prefix caching: the other choices start once choice 0 has evaluated
    // the prompt (its first token), and map its blocks instead of computing
    // the same prompt n times.
    std::promise<void> prefilled;
    std::once_flag once;
    const auto release = [&] { std::call_once(once, [&] { prefilled.set_value(); }); };
    choices[0].observer->OnFirstToken(release);
    std::vector<std::jthread> others;
    std::jthread first([&] {
      run(0);
      release();  // no token at all: the others start anyway
    });
    prefilled.get_future().wait();
    for (int c = 1; c < req.n; ++c) others.emplace_back(run, c);
  } else {
    std::vector<std::jthread> others;
    for (int c = 1; c < req.n; ++c) others.emplace_back(run, c);
    run(0);
  }
  // Free before the answer's last bytes, as /execute: a client that reads
  // them and sends its next request at once must find the worker ready.
  lease.Release();
  int64_t completion_tokens = 0;
  const GenerationResult* failed = nullptr;
  for (const Choice& choice : choices) {
    completion_tokens += choice.result.tokens_out;
    if (!failed && !IsNormalStop(choice.result)) failed = &choice.result;
  }
  // The prompt's tokens and what the prefix cache held of them, as choice 0
  // found it (the other choices map its blocks).
  const int64_t prompt_tokens = choices[0].result.prompt_tokens;
  const std::string usage =
      ",\"usage\":{\"prompt_tokens\":" + std::to_string(prompt_tokens) +
      ",\"completion_tokens\":" + std::to_string(completion_tokens) +
      ",\"total_tokens\":" + std::to_string(prompt_tokens + completion_tokens) +
      ",\"prompt_tokens_details\":{\"cached_tokens\":" +
      std::to_string(choices[0].result.cached_tokens) + "}}";
  if (failed != nullptr) {
    const GenerationResult& r = *failed;
    const auto [event, data] = TerminalEvent(r);
    (void)event;
    if (writer) {
      writer->Data("{\"error\":" + data + "}");
    } else if (r.error_code == "INVALID_REQUEST") {  // e.g. more KV than the pool holds
      SendOpenAiError(response, HTTPResponse::HTTP_BAD_REQUEST, "invalid_request_error",
                      "invalid_request", r.error_message);
    } else {
      SendOpenAiError(response, HTTPResponse::HTTP_INTERNAL_SERVER_ERROR, "server_error",
                      r.stop_reason, r.error_message.empty() ? r.stop_reason : r.error_message);
    }
    return;
  }
  auto finish = [&](const Choice& choice) {
    return JsonQuote(FinishReason(choice.result, choice.output.has_tool_calls()));
  };
  if (writer) {
    // OpenAI's shape: usage only when asked for, in a last chunk of its own
    // with no choices.
    for (const Choice& choice : choices) {
      const std::string index = std::to_string(choice.observer->choice());
      choice.observer->Chunk(
          chat_ ? "{\"delta\":{},\"index\":" + index + ",\"finish_reason\":" + finish(choice) + "}"
                : "{\"text\":\"\",\"index\":" + index +
                      ",\"logprobs\":null,\"finish_reason\":" + finish(choice) + "}");
    }
    if (req.include_usage) writer->Data(head + ",\"choices\":[]" + usage + "}");
    writer->Data("[DONE]");
    return;
  }
  std::string answer = head + ",\"choices\":[";
  for (const Choice& choice : choices) {
    const std::string index = std::to_string(choice.observer->choice());
    const std::string logprobs = choice.observer->AllLogprobs();
    if (choice.observer->choice() > 0) answer += ",";
    answer += chat_
                  ? "{\"index\":" + index + ",\"message\":" + choice.output.MessageJson() +
                        ",\"logprobs\":" + logprobs + ",\"finish_reason\":" + finish(choice) + "}"
                  : "{\"text\":" + JsonQuote(choice.observer->text()) + ",\"index\":" + index +
                        ",\"logprobs\":" + logprobs + ",\"finish_reason\":" + finish(choice) + "}";
  }
  SendJson(response, HTTPResponse::HTTP_OK, answer + "]" + usage + "}");
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
