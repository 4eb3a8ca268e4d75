#include "host/server/ready_callback.h"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/URI.h>

#include <thread>

#include "host/common/logger.h"

namespace orcd {

bool PostReadyCallback(const std::string& url, const std::string& json_body,
                       const ReadyCallbackRetry& retry, const std::atomic<bool>& stop) {
  auto delay = retry.first_delay;
  for (int attempt = 1; attempt <= retry.max_attempts && !stop; ++attempt) {
    std::string failure;
    try {
      const Poco::URI uri(url);
      Poco::Net::HTTPClientSession session(uri.getHost(), uri.getPort());
      session.setTimeout(Poco::Timespan(5, 0));
      Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST,
                                     uri.getPathAndQuery().empty() ? "/" : uri.getPathAndQuery(),
                                     Poco::Net::HTTPMessage::HTTP_1_1);
      request.setContentType("application/json");
      request.setContentLength(static_cast<std::streamsize>(json_body.size()));
      session.sendRequest(request) << json_body;
      Poco::Net::HTTPResponse response;
      session.receiveResponse(response).ignore(1 << 20);
      if (response.getStatus() / 100 == 2) {
        LogInfo("ready_callback", "orchestrator acknowledged readiness",
                {{"attempt", std::to_string(attempt)}});
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
             {"max_attempts", std::to_string(retry.max_attempts)}});
    if (attempt < retry.max_attempts) {
      for (auto waited = std::chrono::milliseconds(0); waited < delay && !stop;
           waited += std::chrono::milliseconds(50)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      delay *= 2;
    }
  }
  return false;
}

}  // namespace orcd
