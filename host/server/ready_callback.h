// The ready callback (WORK-3014): POST {worker_id, model_ref, vram_bytes, uri}
// to {callback_url}/v2/internal/workers/ready once the model is loaded and
// the server listens, retried with exponential backoff. The worker accepts
// jobs only after a 2xx; when every attempt fails it reports "failed" and
// exits 1 (a worker its pool manager does not know would hold the GPU for
// nothing).
#ifndef ORCD_HOST_SERVER_READY_CALLBACK_H_
#define ORCD_HOST_SERVER_READY_CALLBACK_H_

#include <atomic>
#include <chrono>
#include <string>

namespace orcd {

struct ReadyCallbackRetry {
  int max_attempts = 6;
  std::chrono::milliseconds first_delay{250};  // doubles after each failure
  std::chrono::milliseconds max_delay{8000};
  std::chrono::seconds attempt_timeout{5};  // connect, send and receive, each
};

// The spec's path appended to the configured base URL (a base already
// ending in it is kept as is).
std::string ReadyCallbackUrl(const std::string& base_url);

// Whether this build can post to `url` (https needs Poco's NetSSL); `why`
// says what is wrong otherwise. Checked at start-up, before the model loads.
bool CallbackUrlSupported(const std::string& url, std::string* why);

// Returns true once the pool manager answered 2xx. Gives up early when
// `stop` becomes true (shutdown during retries).
bool PostReadyCallback(const std::string& url, const std::string& json_body,
                       const ReadyCallbackRetry& retry, const std::atomic<bool>& stop);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_READY_CALLBACK_H_
