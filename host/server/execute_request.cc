#include "host/server/execute_request.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <set>

#include "host/server/request_validation.h"

namespace orcd {

std::optional<int64_t> CountUtf8CodePoints(const std::string& text) {
  int64_t n = 0;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xe  ? 3
                 : (c >> 3) == 0x1e ? 4
                                    : 0;
    if (len == 0 || i + len > text.size()) return std::nullopt;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return std::nullopt;
    }
    i += len;
    ++n;
  }
  return n;
}

std::variant<ExecuteRequest, ValidationError> ParseExecuteRequest(const std::string& body,
                                                                  const RequestLimits& limits) {
  return Validated<ExecuteRequest>([&] {
    auto obj = ParseJsonObject(body);
    static const std::set<std::string> kKnown = {
        "job_id", "prompt", "max_tokens",         "temperature",
        "top_p",  "top_k",  "repetition_penalty", "min_p",
        "stop",   "seed",   "cache_salt",         "json_schema"};
    ExecuteRequest r;
    for (const auto& [name, value] : *obj) {
      if (!kKnown.count(name)) r.unknown_fields.push_back(name);
    }
    if (!obj->has("job_id")) FailField("job_id", "is required");
    r.job_id = StringField(obj->get("job_id"), "job_id");
    if (obj->has("json_schema") && !obj->get("json_schema").isEmpty())
      r.grammar = SchemaGrammar(obj->get("json_schema"), "json_schema");
    if (obj->has("cache_salt")) {
      r.cache_salt = StringField(obj->get("cache_salt"), "cache_salt");
      if (r.cache_salt.size() > 256) FailField("cache_salt", "must be at most 256 characters");
    }
    if (r.job_id.empty() || r.job_id.size() > 256)
      FailField("job_id", "must be 1 to 256 characters");
    if (!obj->has("prompt")) FailField("prompt", "is required");
    r.prompt = StringField(obj->get("prompt"), "prompt");
    const std::optional<int64_t> chars = CountUtf8CodePoints(r.prompt);
    if (!chars) FailField("prompt", "is not valid UTF-8");
    if (*chars == 0 || *chars > limits.max_prompt_chars) {
      FailField("prompt",
                "must be 1 to " + std::to_string(limits.max_prompt_chars) + " characters");
    }
    r.max_tokens = limits.max_tokens;
    if (obj->has("max_tokens"))
      r.max_tokens = IntegerField(obj->get("max_tokens"), "max_tokens", 1, limits.max_tokens);
    SamplingParams& s = r.sampling;
    if (obj->has("temperature"))
      s.temperature = NumberField(obj->get("temperature"), "temperature", 0, 2);
    // The spec's range is [0, 1]. Nucleus sampling keeps the smallest set of
    // tokens whose probability reaches top_p; at 0 that is the most probable
    // token alone, i.e. top_k 1 (greedy whatever the temperature).
    if (obj->has("top_p")) {
      s.top_p = NumberField(obj->get("top_p"), "top_p", 0, 1);
      if (s.top_p == 0.0) {
        s.top_p = 1.0;
        s.top_k = 1;
      }
    }
    if (obj->has("top_k")) {
      const int64_t k = IntegerField(obj->get("top_k"), "top_k", 0,
                                     limits.vocab_size > 0 ? limits.vocab_size : INT32_MAX);
      if (s.top_k != 1) s.top_k = k;  // top_p 0 already kept one token
    }
    // The spec's range is [0, 2]. A penalty divides positive logits, so 0
    // cannot be applied as a factor: like 1, it means "no penalty" (clients
    // commonly send 0 for "unset").
    if (obj->has("repetition_penalty")) {
      s.repetition_penalty =
          NumberField(obj->get("repetition_penalty"), "repetition_penalty", 0, 2);
      if (s.repetition_penalty == 0.0) s.repetition_penalty = 1.0;
    }
    if (obj->has("min_p")) s.min_p = NumberField(obj->get("min_p"), "min_p", 0, 1);
    if (obj->has("seed") && !obj->get("seed").isEmpty()) {
      s.seed = SeedField(obj->get("seed"), "seed");
      s.seed_from_request = true;
    } else {
      s.seed = DrawSeed();
    }
    if (obj->has("stop")) {
      auto arr = obj->getArray("stop");
      if (!arr) FailField("stop", "must be an array of strings");
      if (static_cast<int64_t>(arr->size()) > limits.max_stop_strings) {
        FailField("stop",
                  "must hold at most " + std::to_string(limits.max_stop_strings) + " strings");
      }
      for (size_t k = 0; k < arr->size(); ++k) {
        const std::string field = "stop[" + std::to_string(k) + "]";
        std::string s_k = StringField(arr->get(static_cast<unsigned>(k)), field);
        if (s_k.empty()) FailField(field, "must not be empty");
        if (!CountUtf8CodePoints(s_k)) FailField(field, "is not valid UTF-8");
        if (limits.count_tokens && limits.count_tokens(s_k) > limits.max_stop_tokens) {
          FailField(field, "must be at most " + std::to_string(limits.max_stop_tokens) + " tokens");
        }
        r.stop.push_back(std::move(s_k));
      }
    }
    return r;
  });
}

}  // namespace orcd
