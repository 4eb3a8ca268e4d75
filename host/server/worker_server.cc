#include "host/server/worker_server.h"

#include <Poco/Net/HTTPServerRequest.h>

#include <string_view>

#include "host/server/anthropic_handlers.h"
#include "host/server/auth.h"
#include "host/server/control_handlers.h"
#include "host/server/execute_handler.h"
#include "host/server/http_listener.h"
#include "host/server/openai_handlers.h"
#include "host/server/responses_handlers.h"
#include "host/server/tokenize_handlers.h"

namespace orcd {
namespace {

using Poco::Net::HTTPRequestHandler;

// Where a route is answered: on the I/O thread (cheap, never blocks) or by a
// handler thread.
enum class Where { kInline, kHandler };

struct RouteSpec {
  std::string_view path;
  std::string_view method;
  Where where;
};

constexpr RouteSpec kRoutes[] = {
    {"/execute", "POST", Where::kHandler},
    {"/cancel", "POST", Where::kInline},
    {"/shutdown", "POST", Where::kInline},
    {"/health", "GET", Where::kInline},
    {"/health/live", "GET", Where::kInline},
    {"/health/ready", "GET", Where::kInline},
    {"/metrics", "GET", Where::kInline},
    {"/v1/models", "GET", Where::kHandler},
    {"/v1/completions", "POST", Where::kHandler},
    {"/v1/chat/completions", "POST", Where::kHandler},
    {"/tokenize", "POST", Where::kHandler},
    {"/detokenize", "POST", Where::kHandler},
    {"/v1/messages", "POST", Where::kHandler},
    {"/v1/messages/count_tokens", "POST", Where::kHandler},
    {"/v1/responses", "POST", Where::kHandler},
};

const RouteSpec* FindRoute(std::string_view path) {
  for (const RouteSpec& r : kRoutes) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

// Client text quoted back in an error, bounded.
std::string Quote(const std::string& s) { return s.size() <= 100 ? s : s.substr(0, 100) + "..."; }

std::optional<InlineResponse> AnswerInline(WorkerState& state, const RequestHead& head,
                                           const std::string& body) {
  // Before routing, so that an unauthenticated client learns nothing of the routes.
  if (std::optional<InlineResponse> refusal = CheckAuth(head, state.config.auth_token)) {
    return refusal;
  }
  const RouteSpec* route = FindRoute(head.path);
  if (!route) {
    return JsonError(404, "NOT_FOUND", "no route " + Quote(head.method) + " " + Quote(head.path),
                     false);
  }
  if (head.method != route->method) {
    InlineResponse r =
        JsonError(405, "METHOD_NOT_ALLOWED",
                  "method " + Quote(head.method) + " not allowed on " + Quote(head.path), false);
    r.fields.emplace_back("Allow", std::string(route->method));
    return r;
  }
  if (route->where == Where::kHandler) return std::nullopt;
  if (head.path == "/cancel") return CancelResponse(state, body);
  if (head.path == "/shutdown") return ShutdownResponse(state);
  if (head.path == "/health") return HealthResponse(state);
  if (head.path == "/health/live") return LiveResponse();
  if (head.path == "/health/ready") return ReadyResponse(state);
  return MetricsResponse(state);
}

HTTPRequestHandler* MakeHandler(WorkerState& state, const Poco::Net::HTTPServerRequest& request) {
  std::string path = request.getURI();
  path.resize(std::min(path.size(), path.find('?')));
  if (path == "/execute") return new ExecuteHandler(state);
  if (HTTPRequestHandler* h = CreateTokenizeHandler(state, path)) return h;
  if (HTTPRequestHandler* h = CreateAnthropicHandler(state, path)) return h;
  if (HTTPRequestHandler* h = CreateResponsesHandler(state, path)) return h;
  return CreateOpenAiHandler(state, request.getMethod(), path);
}

}  // namespace

WorkerServer::WorkerServer(WorkerState& state) {
  const WorkerConfig& config = state.config;
  HttpListenerOptions options;
  options.bind_address = config.bind_address;
  options.port = config.port;
  options.max_connections = config.max_connections;
  // A thread for every job that may run or wait, and a few for the refusals
  // of jobs past them (/cancel and /shutdown are answered on the I/O thread).
  options.handler_threads = config.slots + config.queue_depth + 4;
  options.timeouts.header_s = config.header_timeout_s;
  options.timeouts.body_s = config.body_timeout_s;
  options.timeouts.idle_s = config.idle_timeout_s;
  options.timeouts.send_s = config.send_timeout_s;
  HttpRoutes routes;
  routes.answer_inline = [&state](const RequestHead& head, const std::string& body) {
    return AnswerInline(state, head, body);
  };
  routes.make_handler = [&state](const Poco::Net::HTTPServerRequest& request) {
    return MakeHandler(state, request);
  };
  listener_ = std::make_unique<HttpListener>(std::move(options), std::move(routes));
  port_ = listener_->port();
}

WorkerServer::~WorkerServer() { Stop(); }

void WorkerServer::Stop() {
  if (listener_) listener_->Stop();
}

}  // namespace orcd
