// A raw-socket HTTP client for hostile tests: sends exact bytes (in pieces,
// with pauses, or not at all), then reads every response the server writes
// and whether it closed the connection.
#ifndef ORCD_TESTS_INTEGRATION_RAW_HTTP_H_
#define ORCD_TESTS_INTEGRATION_RAW_HTTP_H_

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace orcd::testing {

struct RawResponse {
  int status = 0;
  std::string reason;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

struct RawExchange {
  std::vector<RawResponse> responses;  // interim 1xx responses included
  bool closed = false;                 // the server ended the connection
  std::string unparsed;                // bytes that were not a response
};

// A connected socket to 127.0.0.1:port (-1 on failure).
int RawConnect(int port);

// Sends `bytes`, then reads until the server closes, or until
// `expected_responses` final responses arrived and `quiet` passed with no
// more data, or `limit` elapsed.
RawExchange RawRoundTrip(int fd, const std::string& bytes, size_t expected_responses,
                         std::chrono::milliseconds quiet, std::chrono::milliseconds limit);

// GET /health on a fresh connection: the time until the whole response.
struct Timed {
  int status = 0;
  std::chrono::microseconds elapsed{0};
};
Timed TimedGet(int port, const std::string& path);

// Parses complete responses off the front of `wire`.
RawExchange ParseResponses(const std::string& wire);

}  // namespace orcd::testing

#endif  // ORCD_TESTS_INTEGRATION_RAW_HTTP_H_
