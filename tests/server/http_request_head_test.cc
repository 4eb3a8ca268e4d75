// The strict request-head parser: every framing ambiguity is refused with
// the status the README documents.
#include "host/server/http_request_head.h"

#include <gtest/gtest.h>

namespace orcd {
namespace {

RequestHead Ok(const std::string& head) {
  auto r = ParseRequestHead(head);
  if (auto* e = std::get_if<HttpRejection>(&r)) {
    ADD_FAILURE() << "refused (" << e->status << " " << e->message << "): " << head;
    return {};
  }
  return std::get<RequestHead>(r);
}

struct Case {
  const char* head;
  int status;
};

class RequestHeadRejected : public ::testing::TestWithParam<Case> {};

TEST_P(RequestHeadRejected, WithTheDocumentedStatus) {
  auto r = ParseRequestHead(GetParam().head);
  ASSERT_TRUE(std::holds_alternative<HttpRejection>(r)) << "accepted: " << GetParam().head;
  EXPECT_EQ(std::get<HttpRejection>(r).status, GetParam().status) << GetParam().head;
}

INSTANTIATE_TEST_SUITE_P(
    Framing, RequestHeadRejected,
    ::testing::Values(
        Case{
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
            400},
        Case{
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n",
            400},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\n", 400},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n", 400},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n", 400},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1e3\r\n\r\n", 400},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n", 400},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 12345678901234567890\r\n\r\n", 400},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", 400},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nContent-Length : 5\r\n\r\n", 400},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: identity\r\n\r\n", 501},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n", 501},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 501},
        Case{"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
             "Transfer-Encoding: chunked\r\n\r\n",
             501},
        Case{"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
        Case{"PRI * HTTP/2.0\r\n\r\n", 505}, Case{"GET / HTTP/3.0\r\nHost: h\r\n\r\n", 505},
        Case{"GET / HTTP/0.9\r\nHost: h\r\n\r\n", 505},
        Case{"GET / HTTP/1.10\r\nHost: h\r\n\r\n", 400},
        Case{"GET / http/1.1\r\nHost: h\r\n\r\n", 400},
        Case{"GET / FOO/1.1\r\nHost: h\r\n\r\n", 400}, Case{"GET /\r\nHost: h\r\n\r\n", 400},
        Case{"GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400},
        Case{"GET / HTTP/1.1 \r\nHost: h\r\n\r\n", 400},
        Case{"G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400},
        Case{"GET health HTTP/1.1\r\nHost: h\r\n\r\n", 400},
        Case{"GET http://h/health HTTP/1.1\r\nHost: h\r\n\r\n", 400},
        Case{"GET /a\x01 HTTP/1.1\r\nHost: h\r\n\r\n", 400},
        Case{"GET / HTTP/1.1\nHost: h\r\n\r\n", 400},
        Case{"GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", 400},
        Case{"GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400},
        Case{"GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", 400},
        Case{"GET / HTTP/1.1\r\nHost: h\r\nX: a\x7f\r\n\r\n", 400},
        Case{"GET / HTTP/1.1\r\n\r\n", 400},
        Case{"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
        Case{"GET / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok\r\n\r\n", 417}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(RequestHead, LimitsOnSizes) {
  const std::string long_target =
      "GET /" + std::string(kMaxRequestTargetBytes, 'a') + " HTTP/1.1\r\nHost: h\r\n\r\n";
  EXPECT_EQ(std::get<HttpRejection>(ParseRequestHead(long_target)).status, 414);
  // A target past the whole head's limit is still a long URI, complete or not.
  const std::string huge = "GET /" + std::string(2 * kMaxRequestHeadBytes, 'a');
  EXPECT_EQ(std::get<HttpRejection>(ParseRequestHead(huge + " HTTP/1.1\r\n\r\n")).status, 414);
  EXPECT_EQ(HeadTooLarge(huge).status, 414) << "the request line not even finished";
  EXPECT_EQ(HeadTooLarge("GET / HTTP/1.1\r\nX: " + std::string(kMaxRequestHeadBytes, 'v')).status,
            431);
  std::string many = "GET / HTTP/1.1\r\nHost: h\r\n";
  for (size_t i = 0; i < kMaxHeaderFields; ++i) many += "X-" + std::to_string(i) + ": v\r\n";
  EXPECT_EQ(std::get<HttpRejection>(ParseRequestHead(many + "\r\n")).status, 431);
}

TEST(RequestHead, AcceptedForms) {
  RequestHead a = Ok("POST /execute?x=1 HTTP/1.1\r\nhost: h\r\ncontent-length:  12 \r\n\r\n");
  EXPECT_EQ(a.method, "POST");
  EXPECT_EQ(a.path, "/execute");
  EXPECT_EQ(a.target, "/execute?x=1");
  EXPECT_EQ(a.framing, BodyFraming::kContentLength);
  EXPECT_EQ(a.content_length, 12u);
  EXPECT_TRUE(a.keep_alive);
  EXPECT_EQ(*a.Find("CONTENT-LENGTH"), "12");

  RequestHead same =
      Ok("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\nContent-Length: 7\r\n\r\n");
  EXPECT_EQ(same.content_length, 7u) << "identical duplicates are one length (RFC 9112 §6.3)";

  RequestHead chunked = Ok("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n");
  EXPECT_EQ(chunked.framing, BodyFraming::kChunked);

  RequestHead old = Ok("GET / HTTP/1.0\r\n\r\n");
  EXPECT_EQ(old.minor_version, 0);
  EXPECT_FALSE(old.keep_alive) << "HTTP/1.0 closes unless asked to keep alive";
  EXPECT_TRUE(Ok("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").keep_alive);
  EXPECT_FALSE(Ok("GET / HTTP/1.1\r\nHost: h\r\nConnection: Close\r\n\r\n").keep_alive);
  EXPECT_EQ(Ok("GET / HTTP/1.2\r\nHost: h\r\n\r\n").minor_version, 1);
  EXPECT_TRUE(Ok("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\n")
                  .expect_continue);
  EXPECT_EQ(Ok("POST / HTTP/1.1\r\nHost: h\r\n\r\n").framing, BodyFraming::kNone)
      << "no length and no coding: an empty body, never read until close";
  EXPECT_EQ(Ok("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n").target, "*");
}

TEST(RequestHead, FindEndOfHead) {
  EXPECT_EQ(FindEndOfHead("GET / HTTP/1.1\r\nHost: h\r\n\r\nbody"), 27u);
  EXPECT_EQ(FindEndOfHead("GET / HTTP/1.1\r\nHost: h\r\n"), std::string::npos);
}

}  // namespace
}  // namespace orcd
