// Fuzz target: the request body parsers, POST /execute's and the OpenAI
// completion and chat completion ones, on the same arbitrary bytes. Every
// body must end as a request or a ValidationError naming what is wrong: an
// exception escaping the parser would be a 500 with no JSON body (issue 15).
// Parsed requests must respect the limits they were checked against.
#include <string>
#include <variant>

#include "host/server/execute_request.h"
#include "host/server/openai_request.h"
#include "tests/fuzz/fuzz_support.h"

namespace orcd::fuzz {
namespace {

RequestLimits Limits() {
  RequestLimits limits;
  limits.max_prompt_chars = 4096;
  limits.max_tokens = 2048;
  limits.vocab_size = 151936;
  // Stand-in for the tokenizer: about four bytes a token.
  limits.count_tokens = [](const std::string& s) { return static_cast<int64_t>(s.size() / 4); };
  return limits;
}

void CheckSampling(const SamplingParams& s, const RequestLimits& limits) {
  Check(s.temperature >= 0 && s.top_p >= 0 && s.top_p <= 1, "temperature and top_p in range");
  Check(s.top_k >= 0 && s.top_k <= limits.vocab_size, "top_k in range");
  Check(s.repetition_penalty >= 0 && s.min_p >= 0 && s.min_p <= 1, "penalty and min_p in range");
}

}  // namespace
}  // namespace orcd::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using orcd::fuzz::Check;
  static const orcd::RequestLimits limits = orcd::fuzz::Limits();
  const std::string body(reinterpret_cast<const char*>(data), size);

  auto execute = orcd::ParseExecuteRequest(body, limits);
  if (const auto* request = std::get_if<orcd::ExecuteRequest>(&execute)) {
    Check(request->max_tokens >= 1 && request->max_tokens <= limits.max_tokens,
          "execute max_tokens in range");
    Check(static_cast<int64_t>(request->stop.size()) <= limits.max_stop_strings,
          "execute stop strings bounded");
    orcd::fuzz::CheckSampling(request->sampling, limits);
  } else {
    Check(!std::get<orcd::ValidationError>(execute).message.empty(), "execute error has a message");
  }

  for (const bool chat : {false, true}) {
    auto openai = orcd::ParseOpenAiRequest(body, chat, limits);
    if (const auto* request = std::get_if<orcd::OpenAiRequest>(&openai)) {
      Check(request->chat == chat, "request kind kept");
      Check(request->max_tokens >= 0 && request->max_tokens <= limits.max_tokens,
            "openai max_tokens in range");
      orcd::fuzz::CheckSampling(request->sampling, limits);
    } else {
      Check(!std::get<orcd::ValidationError>(openai).message.empty(), "openai error has a message");
    }
  }
  return 0;
}
