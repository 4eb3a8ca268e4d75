#include "host/server/worker_server.h"

#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>

#include "host/common/status.h"
#include "host/server/control_handlers.h"
#include "host/server/execute_handler.h"
#include "host/server/openai_handlers.h"

namespace orcd {
namespace {

class Router : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Router(WorkerState& state) : state_(state) {}

  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest& request) override {
    using R = ControlHandler::Route;
    std::string path = request.getURI();
    if (auto q = path.find('?'); q != std::string::npos) path.resize(q);
    const std::string& method = request.getMethod();
    const bool post = method == "POST", get = method == "GET";
    auto control = [&](R route, bool want_post) -> Poco::Net::HTTPRequestHandler* {
      if (want_post ? !post : !get) return new ControlHandler(state_, R::kBadMethod);
      return new ControlHandler(state_, route);
    };
    if (path == "/execute") {
      if (!post) return new ControlHandler(state_, R::kBadMethod);
      return new ExecuteHandler(state_);
    }
    if (path == "/cancel") return control(R::kCancel, true);
    if (path == "/shutdown") return control(R::kShutdown, true);
    if (path == "/health") return control(R::kHealth, false);
    if (path == "/health/live") return control(R::kLive, false);
    if (path == "/health/ready") return control(R::kReady, false);
    if (path == "/metrics") return control(R::kMetrics, false);
    if (Poco::Net::HTTPRequestHandler* h = CreateOpenAiHandler(state_, method, path)) return h;
    return new ControlHandler(state_, R::kNotFound);
  }

 private:
  WorkerState& state_;
};

}  // namespace

WorkerServer::WorkerServer(WorkerState& state) {
  Poco::Net::ServerSocket socket;
  try {
    socket.bind(Poco::Net::SocketAddress(state.config.bind_address,
                                         static_cast<Poco::UInt16>(state.config.port)),
                /*reuseAddress=*/true);
    socket.listen(64);
  } catch (const Poco::Exception& e) {
    throw Error(ErrorCode::kIo, "cannot listen on " + state.config.bind_address + ":" +
                                    std::to_string(state.config.port) + ": " + e.displayText());
  }
  port_ = socket.address().port();
  auto* params = new Poco::Net::HTTPServerParams;  // owned by the server
  params->setMaxThreads(16);
  params->setMaxQueued(64);
  params->setKeepAlive(true);
  params->setTimeout(Poco::Timespan(60, 0));
  server_ = std::make_unique<Poco::Net::HTTPServer>(new Router(state), socket, params);
  server_->start();
}

WorkerServer::~WorkerServer() { Stop(); }

void WorkerServer::Stop() {
  if (server_) {
    server_->stopAll(/*abortCurrent=*/false);
    server_.reset();
  }
}

}  // namespace orcd
