#include "host/server/ready_callback.h"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/URI.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "host/common/logger.h"

#if ORCD_HAVE_NETSSL
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPSClientSession.h>
#endif

namespace orcd {
namespace {

constexpr std::string_view kReadyPath = "/v2/internal/workers/ready";

std::unique_ptr<Poco::Net::HTTPClientSession> OpenSession(const Poco::URI& uri) {
#if ORCD_HAVE_NETSSL
  if (uri.getScheme() == "https") {
    // Certificates are verified against the system's CAs (a pool manager
    // with a private CA: add it to the system store).
    static const Poco::Net::Context::Ptr context = new Poco::Net::Context(
        Poco::Net::Context::TLS_CLIENT_USE, "", Poco::Net::Context::VERIFY_RELAXED, 9, true);
    return std::make_unique<Poco::Net::HTTPSClientSession>(uri.getHost(), uri.getPort(), context);
  }
#endif
  return std::make_unique<Poco::Net::HTTPClientSession>(uri.getHost(), uri.getPort());
}

// Sleeps `delay` in small steps, returning early when `stop` is set.
void SleepUnlessStopped(std::chrono::milliseconds delay, const std::atomic<bool>& stop) {
  for (auto waited = std::chrono::milliseconds(0); waited < delay && !stop;
       waited += std::chrono::milliseconds(20)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

std::string ReadyCallbackUrl(const std::string& base_url) {
  std::string url = base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.size() >= kReadyPath.size() &&
      url.compare(url.size() - kReadyPath.size(), kReadyPath.size(), kReadyPath) == 0) {
    return url;
  }
  return url + std::string(kReadyPath);
}

bool CallbackUrlSupported(const std::string& url, std::string* why) {
  try {
    const Poco::URI uri(url);
    if (uri.getScheme() != "http" && uri.getScheme() != "https") {
      *why = "the callback URL must be http:// or https://";
      return false;
    }
    if (uri.getHost().empty()) {
      *why = "the callback URL has no host";
      return false;
    }
#if !ORCD_HAVE_NETSSL
    if (uri.getScheme() == "https") {
      *why =
          "this build has no TLS client (Poco NetSSL was not found at build time); use an "
          "http:// callback URL or rebuild with libpoco-dev's NetSSL";
      return false;
    }
#endif
    return true;
  } catch (const Poco::Exception& e) {
    *why = "the callback URL is malformed: " + e.displayText();
    return false;
  }
}

bool PostReadyCallback(const std::string& url, const std::string& json_body,
                       const ReadyCallbackRetry& retry, const std::atomic<bool>& stop) {
  auto delay = retry.first_delay;
  for (int attempt = 1; attempt <= retry.max_attempts && !stop; ++attempt) {
    std::string failure;
    try {
      const Poco::URI uri(url);
      auto session = OpenSession(uri);
      session->setTimeout(Poco::Timespan(retry.attempt_timeout.count(), 0));
      Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST,
                                     uri.getPathAndQuery().empty() ? "/" : uri.getPathAndQuery(),
                                     Poco::Net::HTTPMessage::HTTP_1_1);
      request.setContentType("application/json");
      request.setContentLength(static_cast<std::streamsize>(json_body.size()));
      session->sendRequest(request) << json_body;
      Poco::Net::HTTPResponse response;
      session->receiveResponse(response).ignore(1 << 20);
      if (response.getStatus() / 100 == 2) {
        LogInfo("ready_callback", "the pool manager acknowledged readiness",
                {{"attempt", std::to_string(attempt)}, {"url", url}});
        return true;
      }
      failure = "HTTP " + std::to_string(static_cast<int>(response.getStatus()));
    } catch (const Poco::Exception& e) {
      failure = e.displayText();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    LogWarn("ready_callback_failed", failure,
            {{"attempt", std::to_string(attempt)},
             {"max_attempts", std::to_string(retry.max_attempts)},
             {"url", url}});
    if (attempt < retry.max_attempts) {
      SleepUnlessStopped(delay, stop);
      delay = std::min(delay * 2, retry.max_delay);
    }
  }
  return false;
}

}  // namespace orcd
