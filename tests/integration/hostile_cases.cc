#include "tests/integration/hostile_cases.h"

namespace orcd::testing {
namespace {

const std::string kHealth = "GET /health HTTP/1.1\r\nHost: t\r\n\r\n";
// A request hidden in a body: it must never be answered.
const std::string kSmuggled = "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n";

std::string Post(const std::string& path, const std::string& body, const std::string& extra = "") {
  return "POST " + path + " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" + extra +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string Head(const std::string& fields) {
  return "POST /cancel HTTP/1.1\r\nHost: t\r\n" + fields + "\r\n";
}

std::string Chunked(const std::string& path, const std::string& chunks) {
  return "POST " + path + " HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks;
}

std::string Execute(const std::string& fields) {
  return Post("/execute", R"({"job_id":"h","prompt":"hi")" + fields + "}");
}

std::string Chat(const std::string& fields, const std::string& content = "\"hi\"") {
  return Post("/v1/chat/completions",
              R"({"messages":[{"role":"user","content":)" + content + "}]" + fields + "}");
}

constexpr const char* kBadHttp = "\"code\":\"BAD_HTTP_REQUEST\"";
constexpr const char* kInvalid = "\"code\":\"INVALID_REQUEST\"";
constexpr const char* kMethodNotAllowed = "\"code\":\"METHOD_NOT_ALLOWED\"";
constexpr const char* kOpenAiInvalid = "\"type\":\"invalid_request_error\"";

}  // namespace

std::vector<HostileCase> HostileCases() {
  const std::string cancel_body = R"({"job_id":"x"})";
  std::vector<HostileCase> c = {
      // Request smuggling (RFC 9112 §6.1, §6.3): refused and closed, and the
      // bytes after the first body never run as a second request.
      {"cl_and_te",
       Head("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n") + "0\r\n\r\n" + kHealth,
       {400},
       kBadHttp,
       true},
      {"te_and_cl",
       Head("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n") + "0\r\n\r\n" + kHealth,
       {400},
       kBadHttp,
       true},
      {"cl_duplicate_conflict",
       Head("Content-Length: 14\r\nContent-Length: 2\r\n") + cancel_body + kHealth,
       {400},
       kBadHttp,
       true},
      {"cl_list_conflict", Head("Content-Length: 14, 2\r\n") + cancel_body, {400}, kBadHttp, true},
      {"cl_letters", Head("Content-Length: abc\r\n"), {400}, kBadHttp, true},
      {"cl_hex", Head("Content-Length: 0x10\r\n"), {400}, kBadHttp, true},
      {"cl_exponent", Head("Content-Length: 1e3\r\n"), {400}, kBadHttp, true},
      {"cl_twenty_digits", Head("Content-Length: 12345678901234567890\r\n"), {400}, kBadHttp, true},
      {"cl_negative", Head("Content-Length: -1\r\n"), {400}, kBadHttp, true},
      {"cl_plus_sign", Head("Content-Length: +14\r\n") + cancel_body, {400}, kBadHttp, true},
      {"cl_empty", Head("Content-Length:\r\n"), {400}, kBadHttp, true},
      {"cl_space_before_colon",
       Head("Content-Length : 14\r\n") + cancel_body,
       {400},
       kBadHttp,
       true},
      {"te_identity", Head("Transfer-Encoding: identity\r\n"), {501}, kBadHttp, true},
      {"te_xchunked", Head("Transfer-Encoding: xchunked\r\n"), {501}, kBadHttp, true},
      {"te_list", Head("Transfer-Encoding: gzip, chunked\r\n"), {501}, kBadHttp, true},
      {"te_chunked_twice", Head("Transfer-Encoding: chunked, chunked\r\n"), {501}, kBadHttp, true},
      {"te_in_http10",
       "POST /cancel HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
       {400},
       kBadHttp,
       true},
      {"chunk_size_garbage", Chunked("/cancel", "5x\r\nhello\r\n0\r\n\r\n"), {400}, kBadHttp, true},
      {"chunk_size_smuggled_request",
       Chunked("/cancel", "0 " + kHealth.substr(0, 20) + "\r\n\r\n" + kHealth),
       {400},
       kBadHttp,
       true},
      {"chunk_data_without_crlf", Chunked("/cancel", "2\r\n{}XX0\r\n\r\n"), {400}, kBadHttp, true},
      {"chunk_bare_lf", Chunked("/cancel", "2\n{}\r\n0\r\n\r\n"), {400}, kBadHttp, true},
      {"chunk_negative", Chunked("/cancel", "-2\r\n{}\r\n0\r\n\r\n"), {400}, kBadHttp, true},
      {"chunk_too_large", Chunked("/cancel", "200000\r\n"), {413}, kInvalid, true},
      // Versions and request lines.
      {"http2_preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", {505}, kBadHttp, true},
      {"http3_version", "GET /health HTTP/3.0\r\nHost: t\r\n\r\n", {505}, kBadHttp, true},
      {"http09_version", "GET /health HTTP/0.9\r\n\r\n", {505}, kBadHttp, true},
      {"version_two_digits", "GET /health HTTP/1.10\r\nHost: t\r\n\r\n", {400}, kBadHttp, true},
      {"version_lowercase", "GET /health http/1.1\r\nHost: t\r\n\r\n", {400}, kBadHttp, true},
      {"version_missing", "GET /health\r\nHost: t\r\n\r\n", {400}, kBadHttp, true},
      {"request_line_double_space",
       "GET  /health HTTP/1.1\r\nHost: t\r\n\r\n",
       {400},
       kBadHttp,
       true},
      {"method_not_a_token", "GE(T /health HTTP/1.1\r\nHost: t\r\n\r\n", {400}, kBadHttp, true},
      {"target_absolute_form",
       "GET http://t/health HTTP/1.1\r\nHost: t\r\n\r\n",
       {400},
       kBadHttp,
       true},
      {"target_no_slash", "GET health HTTP/1.1\r\nHost: t\r\n\r\n", {400}, kBadHttp, true},
      {"target_control_char",
       std::string("GET /he\x01lth HTTP/1.1\r\nHost: t\r\n\r\n"),
       {400},
       kBadHttp,
       true},
      {"target_too_long",
       "GET /" + std::string(9000, 'a') + " HTTP/1.1\r\nHost: t\r\n\r\n",
       {414},
       kBadHttp,
       true},
      {"target_past_the_head_limit",
       "GET /" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: t\r\n\r\n",
       {414},
       kBadHttp,
       true},
      {"binary_garbage",
       std::string("\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\r\n\r\n", 14),
       {400},
       kBadHttp,
       true},
      // Header fields.
      {"bare_lf_lines", "GET /health HTTP/1.1\nHost: t\n\r\n\r\n", {400}, kBadHttp, true},
      {"bare_cr_in_field", "GET /health HTTP/1.1\r\nHost: t\rX: y\r\n\r\n", {400}, kBadHttp, true},
      {"folded_field",
       "GET /health HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n  2\r\n\r\n",
       {400},
       kBadHttp,
       true},
      {"field_without_colon",
       "GET /health HTTP/1.1\r\nHost: t\r\nNoColon\r\n\r\n",
       {400},
       kBadHttp,
       true},
      {"field_control_char",
       std::string("GET /health HTTP/1.1\r\nHost: t\r\nX: a\x7f\r\n\r\n"),
       {400},
       kBadHttp,
       true},
      {"host_missing", "GET /health HTTP/1.1\r\n\r\n", {400}, kBadHttp, true},
      {"host_twice", "GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", {400}, kBadHttp, true},
      {"head_too_large",
       "GET /health HTTP/1.1\r\nHost: t\r\nX: " + std::string(20000, 'a') + "\r\n\r\n",
       {431},
       kBadHttp,
       true},
      {"too_many_fields",
       [] {
         std::string r = "GET /health HTTP/1.1\r\nHost: t\r\n";
         for (int i = 0; i < 120; ++i) r += "X-" + std::to_string(i) + ": v\r\n";
         return r + "\r\n";
       }(),
       {431},
       kBadHttp,
       true},
      {"expect_unknown",
       "GET /health HTTP/1.1\r\nHost: t\r\nExpect: teapot\r\n\r\n",
       {417},
       kBadHttp,
       true},
      {"body_declared_too_large", Head("Content-Length: 2097152\r\n"), {413}, kInvalid, true},
      // Deadlines (0.5 s here): a head or body that never completes is a 408.
      {"head_never_completes",
       "GET /health HTTP/1.1\r\nHost: t\r\n",
       {408},
       "REQUEST_TIMEOUT",
       true},
      {"body_never_arrives",
       Head("Content-Length: 14\r\n") + "{\"job",
       {408},
       "REQUEST_TIMEOUT",
       true},
      {"chunked_never_ends", Chunked("/cancel", "2\r\n{}\r\n"), {408}, "REQUEST_TIMEOUT", true},
      {"tls_client_hello",
       std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11),
       {408},
       "REQUEST_TIMEOUT",
       true},
      // Routing: documented statuses, connection kept.
      {"unknown_path", "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n", {404}, "NOT_FOUND"},
      {"post_health",
       "POST /health HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n",
       {405},
       kMethodNotAllowed,
       false,
       "allow: GET"},
      {"get_execute",
       "GET /execute HTTP/1.1\r\nHost: t\r\n\r\n",
       {405},
       kMethodNotAllowed,
       false,
       "allow: POST"},
      {"delete_cancel",
       "DELETE /cancel HTTP/1.1\r\nHost: t\r\n\r\n",
       {405},
       kMethodNotAllowed,
       false,
       "allow: POST"},
      {"head_health",
       "HEAD /health HTTP/1.1\r\nHost: t\r\n\r\n",
       {405},
       kMethodNotAllowed,
       false,
       "allow: GET"},
      {"get_chat_completions",
       "GET /v1/chat/completions HTTP/1.1\r\nHost: t\r\n\r\n",
       {405},
       kMethodNotAllowed,
       false,
       "allow: POST"},
      // A body on a GET is read and dropped, never run as the next request.
      {"get_with_body_then_pipelined",
       "GET /health/live HTTP/1.1\r\nHost: t\r\nContent-Length: " +
           std::to_string(kSmuggled.size()) + "\r\n\r\n" + kSmuggled +
           "GET /health/ready HTTP/1.1\r\nHost: t\r\n\r\n",
       {200, 200},
       "ready"},
      {"post_without_length_is_empty",
       "POST /execute HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\r\n",
       {400},
       kInvalid},
      {"expect_continue",
       Post("/cancel", cancel_body, "Expect: 100-continue\r\n"),
       {202},
       "cancel_requested"},
      {"chunked_body_decoded",
       Chunked("/cancel", "e\r\n" + cancel_body + "\r\n0\r\n\r\n"),
       {202},
       "cancel_requested"},
      // /execute validation: 400 naming the field.
      {"execute_not_json", Post("/execute", "{"), {400}, kInvalid},
      {"execute_array", Post("/execute", "[]"), {400}, kInvalid},
      {"execute_max_tokens_true",
       Execute(R"(,"max_tokens":true)"),
       {400},
       "\"field\":\"max_tokens\""},
      {"execute_temperature_false",
       Execute(R"(,"temperature":false)"),
       {400},
       "\"field\":\"temperature\""},
      {"execute_top_k_true", Execute(R"(,"top_k":true)"), {400}, "\"field\":\"top_k\""},
      {"execute_min_p_true", Execute(R"(,"min_p":true)"), {400}, "\"field\":\"min_p\""},
      {"execute_seed_2_pow_64",
       Execute(R"(,"seed":18446744073709551616)"),
       {400},
       "\"field\":\"seed\""},
      {"execute_seed_true", Execute(R"(,"seed":true)"), {400}, "\"field\":\"seed\""},
      {"execute_max_tokens_huge",
       Execute(R"(,"max_tokens":99999999999999999999999)"),
       {400},
       "\"field\":\"max_tokens\""},
      {"execute_prompt_number",
       Post("/execute", R"({"job_id":"h","prompt":5})"),
       {400},
       "\"field\":\"prompt\""},
      {"execute_job_id_too_long",
       Post("/execute", R"({"job_id":")" + std::string(300, 'j') + R"(","prompt":"hi"})"),
       {400},
       "\"field\":\"job_id\""},
      // OpenAI endpoints: 400 JSON errors, never 500 with an empty body.
      {"openai_n_string", Chat(R"(,"n":"2")"), {400}, "\"param\":\"n\""},
      {"openai_n_array", Chat(R"(,"n":[1])"), {400}, "\"param\":\"n\""},
      {"openai_n_1e300", Chat(R"(,"n":1e300)"), {400}, "\"param\":\"n\""},
      {"openai_seed_minus_one", Chat(R"(,"seed":-1)"), {400}, "\"param\":\"seed\""},
      {"openai_max_tokens_2_pow_63",
       Chat(R"(,"max_tokens":9223372036854775808)"),
       {400},
       "\"param\":\"max_tokens\""},
      {"openai_content_number", Chat("", "42"), {400}, "\"param\":\"messages[0].content\""},
      {"openai_content_object", Chat("", R"({"a":1})"), {400}, "\"param\":\"messages[0].content\""},
      {"openai_part_text_number",
       Chat("", R"([{"type":"text","text":5}])"),
       {400},
       "\"param\":\"messages[0].content[0].text\""},
      {"openai_stream_string", Chat(R"(,"stream":"yes")"), {400}, "\"param\":\"stream\""},
      {"openai_completion_prompt_array",
       Post("/v1/completions", R"({"prompt":["a"]})"),
       {400},
       kOpenAiInvalid},
      // /cancel: ids bounded.
      {"cancel_id_257_bytes",
       Post("/cancel", R"({"job_id":")" + std::string(257, 'c') + "\"}"),
       {400},
       "\"field\":\"job_id\""},
      {"cancel_id_256_bytes",
       Post("/cancel", R"({"job_id":")" + std::string(256, 'c') + "\"}"),
       {202},
       "cancel_requested"},
      {"cancel_id_number", Post("/cancel", R"({"job_id":12})"), {400}, "\"field\":\"job_id\""},
  };
  return c;
}

}  // namespace orcd::testing
