// /execute validation: every field's type and range, with the field named.
#include "host/server/execute_request.h"

#include <gtest/gtest.h>

namespace orcd {
namespace {

RequestLimits Limits() {
  RequestLimits l;
  l.vocab_size = 1000;
  l.count_tokens = [](const std::string& s) { return static_cast<int64_t>(s.size()); };
  return l;
}

ExecuteRequest Ok(const std::string& body) {
  auto r = ParseExecuteRequest(body, Limits());
  if (auto* e = std::get_if<ValidationError>(&r)) ADD_FAILURE() << e->message;
  return std::get<ExecuteRequest>(r);
}

ValidationError Bad(const std::string& body) {
  auto r = ParseExecuteRequest(body, Limits());
  if (std::holds_alternative<ExecuteRequest>(r)) {
    ADD_FAILURE() << "accepted: " << body;
    return {};
  }
  return std::get<ValidationError>(r);
}

TEST(ExecuteRequest, DefaultsAndFullRequest) {
  ExecuteRequest a = Ok(R"({"job_id":"j1","prompt":"hi"})");
  EXPECT_EQ(a.max_tokens, 2048);
  EXPECT_EQ(a.sampling.temperature, 1.0);
  EXPECT_EQ(a.sampling.top_k, 0);
  EXPECT_FALSE(a.sampling.seed_from_request) << "seed generated when omitted";
  ExecuteRequest b = Ok(R"({"job_id":"j2","prompt":"hi","max_tokens":5,"temperature":0.7,
      "top_p":0.9,"top_k":50,"repetition_penalty":1.1,"min_p":0.05,"stop":["\n\n","END"],
      "seed":18446744073709551615,"cache_salt":"tenant-a"})");
  EXPECT_EQ(b.max_tokens, 5);
  EXPECT_DOUBLE_EQ(b.sampling.top_p, 0.9);
  EXPECT_EQ(b.sampling.top_k, 50);
  EXPECT_EQ(b.stop, (std::vector<std::string>{"\n\n", "END"}));
  EXPECT_EQ(b.sampling.seed, 18446744073709551615ull);
  EXPECT_TRUE(b.sampling.seed_from_request);
  EXPECT_EQ(b.cache_salt, "tenant-a");
  EXPECT_TRUE(b.unknown_fields.empty()) << "cache_salt is a known field";
  EXPECT_EQ(a.cache_salt, "");
}

struct Case {
  const char* body;
  const char* field;
  const char* needle;
};

class ExecuteRequestInvalid : public ::testing::TestWithParam<Case> {};

TEST_P(ExecuteRequestInvalid, NamesTheField) {
  ValidationError e = Bad(GetParam().body);
  EXPECT_EQ(e.field, GetParam().field);
  EXPECT_NE(e.message.find(GetParam().needle), std::string::npos) << e.message;
}

INSTANTIATE_TEST_SUITE_P(
    Fields, ExecuteRequestInvalid,
    ::testing::Values(
        Case{"not json", "", "not valid JSON"}, Case{"[1]", "", "JSON object"},
        Case{R"({"prompt":"x"})", "job_id", "required"},
        Case{R"({"job_id":"","prompt":"x"})", "job_id", "1 to 256"},
        Case{R"({"job_id":7,"prompt":"x"})", "job_id", "must be a string"},
        Case{R"({"job_id":"j"})", "prompt", "required"},
        Case{R"({"job_id":"j","prompt":""})", "prompt", "1 to 32768"},
        Case{R"({"job_id":"j","prompt":"x","max_tokens":0})", "max_tokens", "between 1 and 2048"},
        Case{R"({"job_id":"j","prompt":"x","cache_salt":7})", "cache_salt", "must be a string"},
        Case{R"({"job_id":"j","prompt":"x","max_tokens":2049})", "max_tokens",
             "between 1 and 2048"},
        Case{R"({"job_id":"j","prompt":"x","max_tokens":1.5})", "max_tokens", "integer"},
        Case{R"({"job_id":"j","prompt":"x","temperature":2.5})", "temperature",
             "[0.000000, 2.000000]"},
        Case{R"({"job_id":"j","prompt":"x","temperature":-1})", "temperature", "must be in"},
        Case{R"({"job_id":"j","prompt":"x","temperature":"hot"})", "temperature", "number"},
        Case{R"({"job_id":"j","prompt":"x","top_p":-0.1})", "top_p", "[0.000000, 1.000000]"},
        Case{R"({"job_id":"j","prompt":"x","top_p":1.1})", "top_p", "must be in"},
        Case{R"({"job_id":"j","prompt":"x","top_k":-1})", "top_k", "between 0 and 1000"},
        Case{R"({"job_id":"j","prompt":"x","top_k":1001})", "top_k", "between 0 and 1000"},
        Case{R"({"job_id":"j","prompt":"x","repetition_penalty":-1})", "repetition_penalty", "[0"},
        Case{R"({"job_id":"j","prompt":"x","repetition_penalty":2.1})", "repetition_penalty",
             "must be in"},
        Case{R"({"job_id":"j","prompt":"x","min_p":1.5})", "min_p", "must be in"},
        Case{R"({"job_id":"j","prompt":"x","stop":"END"})", "stop", "array of strings"},
        Case{R"({"job_id":"j","prompt":"x","stop":["a","b","c","d","e"]})", "stop", "at most 4"},
        Case{R"({"job_id":"j","prompt":"x","stop":[""]})", "stop[0]", "not be empty"},
        Case{R"({"job_id":"j","prompt":"x","stop":[3]})", "stop[0]", "must be a string"},
        Case{R"({"job_id":"j","prompt":"x","stop":["0123456789012345678901234567890123"]})",
             "stop[0]", "at most 32 tokens"},
        Case{R"({"job_id":"j","prompt":"x","seed":-1})", "seed", "between 0 and"},
        Case{R"({"job_id":"j","prompt":"x","seed":"42"})", "seed", "between 0 and"},
        // true/false are not numbers; integers past 2^64 do not wrap to 0.
        Case{R"({"job_id":"j","prompt":"x","max_tokens":true})", "max_tokens", "integer"},
        Case{R"({"job_id":"j","prompt":"x","temperature":false})", "temperature", "number"},
        Case{R"({"job_id":"j","prompt":"x","top_k":true})", "top_k", "integer"},
        Case{R"({"job_id":"j","prompt":"x","repetition_penalty":true})", "repetition_penalty",
             "number"},
        Case{R"({"job_id":"j","prompt":"x","min_p":true})", "min_p", "number"},
        Case{R"({"job_id":"j","prompt":"x","top_p":true})", "top_p", "number"},
        Case{R"({"job_id":"j","prompt":"x","seed":true})", "seed", "between 0 and"},
        Case{R"({"job_id":"j","prompt":"x","seed":18446744073709551616})", "seed", "between 0 and"},
        Case{R"({"job_id":"j","prompt":"x","seed":1e30})", "seed", "between 0 and"},
        Case{R"({"job_id":"j","prompt":"x","max_tokens":18446744073709551617})", "max_tokens",
             "integer"},
        Case{R"({"job_id":"j","prompt":"x","max_tokens":-99999999999999999999})", "max_tokens",
             "integer"},
        Case{R"({"job_id":"j","prompt":"x","top_k":9223372036854775808})", "top_k", "integer"},
        Case{R"({"job_id":true,"prompt":"x"})", "job_id", "must be a string"},
        Case{R"({"job_id":"j","prompt":["x"]})", "prompt", "must be a string"}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

// Inside the spec's ranges, and defined: top_p 0 keeps the most probable
// token only (top_k 1), repetition_penalty 0 means no penalty.
TEST(ExecuteRequest, TopPZeroAndRepetitionPenaltyZeroAreAcceptedAndDefined) {
  ExecuteRequest a = Ok(R"({"job_id":"j","prompt":"x","top_p":0,"top_k":40})");
  EXPECT_EQ(a.sampling.top_k, 1);
  EXPECT_DOUBLE_EQ(a.sampling.top_p, 1.0);
  ExecuteRequest b = Ok(R"({"job_id":"j","prompt":"x","repetition_penalty":0.0})");
  EXPECT_DOUBLE_EQ(b.sampling.repetition_penalty, 1.0);
}

// A newer pool manager's field must not fail the request during a rolling upgrade.
TEST(ExecuteRequest, UnknownFieldsAreIgnoredAndNamed) {
  ExecuteRequest r = Ok(R"({"job_id":"j","prompt":"x","priority":3,"trace":{"id":1}})");
  EXPECT_EQ(r.prompt, "x");
  EXPECT_EQ(r.unknown_fields, (std::vector<std::string>{"priority", "trace"}));
}

TEST(ExecuteRequest, PromptLengthCountsCharactersNotBytes) {
  std::string prompt;
  for (int i = 0; i < 32768; ++i) prompt += "\xe4\xbd\xa0";  // 32768 chars, 98304 bytes
  Ok(R"({"job_id":"j","prompt":")" + prompt + "\"}");
  ValidationError e = Bad(R"({"job_id":"j","prompt":")" + prompt + "x\"}");
  EXPECT_EQ(e.field, "prompt");
}

TEST(ExecuteRequest, Utf8Counting) {
  EXPECT_EQ(CountUtf8CodePoints("a\xc3\xa9\xe4\xbd\xa0\xf0\x9f\x91\x8b"), 4);
  EXPECT_EQ(CountUtf8CodePoints("\xe4\xbd"), std::nullopt);
  EXPECT_EQ(CountUtf8CodePoints("\xff"), std::nullopt);
}

// json_schema: compiled at validation, so a schema it cannot honour is a
// 400 naming the field and the keyword, before the job queues.
TEST(ExecuteRequest, JsonSchemaCompilesOrIsRefusedByKeyword) {
  const ExecuteRequest r = Ok(R"({"job_id":"j","prompt":"x","json_schema":{"type":"object",
      "properties":{"a":{"type":"integer"}},"required":["a"]}})");
  ASSERT_NE(r.grammar, nullptr);
  EXPECT_TRUE(r.unknown_fields.empty());
  EXPECT_EQ(Ok(R"({"job_id":"j","prompt":"x"})").grammar, nullptr);
  const ValidationError e =
      Bad(R"({"job_id":"j","prompt":"x","json_schema":{"type":"array","uniqueItems":true}})");
  EXPECT_EQ(e.field, "json_schema");
  EXPECT_NE(e.message.find("'uniqueItems'"), std::string::npos) << e.message;
}

}  // namespace
}  // namespace orcd
