// The optional ready callback: POST {worker_id, model_ref, vram_bytes, uri}
// to server.callback_url, retried with exponential backoff.
#ifndef ORCD_HOST_SERVER_READY_CALLBACK_H_
#define ORCD_HOST_SERVER_READY_CALLBACK_H_

#include <atomic>
#include <chrono>
#include <string>

namespace orcd {

struct ReadyCallbackRetry {
  int max_attempts = 6;
  std::chrono::milliseconds first_delay{250};  // doubles after each failure
};

// Returns true once the orchestrator answered 2xx. Gives up early when
// `stop` becomes true (shutdown during retries).
bool PostReadyCallback(const std::string& url, const std::string& json_body,
                       const ReadyCallbackRetry& retry, const std::atomic<bool>& stop);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_READY_CALLBACK_H_
