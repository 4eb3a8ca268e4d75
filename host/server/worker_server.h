// The HTTP server: the route table over HttpListener. Health, readiness and
// metrics are answered on the listener's I/O thread, so they answer while a
// job streams and whatever other clients do; the other routes run on
// handler threads.
#ifndef ORCD_HOST_SERVER_WORKER_SERVER_H_
#define ORCD_HOST_SERVER_WORKER_SERVER_H_

#include <memory>

#include "host/server/worker_state.h"

namespace orcd {

class HttpListener;

class WorkerServer {
 public:
  // Binds and starts serving. Throws orcd::Error(kIo) when the address is taken.
  explicit WorkerServer(WorkerState& state);
  ~WorkerServer();
  int port() const { return port_; }
  // Stops accepting connections and waits for handlers to finish.
  void Stop();

 private:
  std::unique_ptr<HttpListener> listener_;
  int port_ = 0;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_WORKER_SERVER_H_
