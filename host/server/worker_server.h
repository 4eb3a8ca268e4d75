// The HTTP server: Poco's HTTPServer on the configured address, routing to
// the handlers. Health endpoints are answered while a job streams.
#ifndef ORCD_HOST_SERVER_WORKER_SERVER_H_
#define ORCD_HOST_SERVER_WORKER_SERVER_H_

#include <memory>

#include "host/server/worker_state.h"

namespace Poco::Net {
class HTTPServer;
}

namespace orcd {

class WorkerServer {
 public:
  // Binds and starts serving. Throws orcd::Error(kIo) when the address is taken.
  explicit WorkerServer(WorkerState& state);
  ~WorkerServer();
  int port() const { return port_; }
  // Stops accepting connections and waits for handlers to finish.
  void Stop();

 private:
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  int port_ = 0;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_WORKER_SERVER_H_
