// POST /execute: the request body, its validation, and the sampling
// parameters it carries. Ranges follow the seed spec (M0-W-1300).
#ifndef ORCD_HOST_SERVER_EXECUTE_REQUEST_H_
#define ORCD_HOST_SERVER_EXECUTE_REQUEST_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "host/generation/sampling_params.h"

namespace orcd {

namespace structured {
class Grammar;
}

struct ExecuteRequest {
  std::string job_id;
  std::string prompt;
  int64_t max_tokens = 2048;
  SamplingParams sampling;
  std::vector<std::string> stop;
  std::string cache_salt;  // prefix caching: shared only under the same salt
  // json_schema: structured output, the output held to the schema's compact
  // instances (null: free text).
  std::shared_ptr<const structured::Grammar> grammar;
  // Fields this worker does not know (a newer pool manager's): ignored, so
  // that a rolling upgrade does not fail requests; the handler logs their
  // names at debug and counts them.
  std::vector<std::string> unknown_fields;
};

struct RequestLimits {
  int64_t max_prompt_chars = 32768;  // Unicode code points
  int64_t max_tokens = 2048;         // min(spec 2048, limits.max_output_tokens)
  int64_t vocab_size = 0;            // top_k upper bound
  int64_t max_stop_strings = 4;
  int64_t max_stop_tokens = 32;
  // Counts tokens of a stop string; unset = not checked.
  std::function<int64_t(const std::string&)> count_tokens;
};

struct ValidationError {
  std::string field;    // the JSON field at fault ("" for the body itself)
  std::string message;  // names the field and the allowed range
};

// Parses and validates a JSON body. On success the seed is filled in (drawn
// from a random device when the request has none).
std::variant<ExecuteRequest, ValidationError> ParseExecuteRequest(const std::string& body,
                                                                  const RequestLimits& limits);

// Number of UTF-8 code points, or nullopt when `text` is not valid UTF-8.
std::optional<int64_t> CountUtf8CodePoints(const std::string& text);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_EXECUTE_REQUEST_H_
