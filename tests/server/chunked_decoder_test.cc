// Chunked request bodies: decoded exactly, refused on any malformed line.
#include "host/server/chunked_decoder.h"

#include <gtest/gtest.h>

namespace orcd {
namespace {

using Status = ChunkedDecoder::Status;

Status Decode(const std::string& input, std::string* body, size_t* consumed,
              size_t max_body = 1 << 20) {
  ChunkedDecoder d(max_body);
  return d.Feed(input, body, consumed);
}

TEST(ChunkedDecoder, DecodesChunksExtensionsAndTrailers) {
  std::string body;
  size_t used = 0;
  const std::string wire =
      "5\r\nhello\r\n1;name=value\r\n \r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\nNEXT";
  EXPECT_EQ(Decode(wire, &body, &used), Status::kDone);
  EXPECT_EQ(body, "hello 0123456789");
  EXPECT_EQ(wire.substr(used), "NEXT") << "what follows belongs to the next request";
}

TEST(ChunkedDecoder, ByteAtATimeGivesTheSameBody) {
  const std::string wire = "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
  ChunkedDecoder d(1 << 20);
  std::string body, pending;
  Status s = Status::kNeedMore;
  for (char c : wire) {
    pending += c;
    size_t used = 0;
    s = d.Feed(pending, &body, &used);
    pending.erase(0, used);
    if (s != Status::kNeedMore) break;
  }
  EXPECT_EQ(s, Status::kDone);
  EXPECT_EQ(body, "abcde");
}

TEST(ChunkedDecoder, MalformedLinesAreErrors) {
  for (const char* wire : {
           "5x\r\nhello\r\n0\r\n\r\n",       // garbage after the size
           "5 GET / HTTP/1.1\r\nhello\r\n",  // a request smuggled on the size line
           "\r\nhello\r\n",                  // no size
           "-5\r\nhello\r\n",                // not hex
           "5\nhello\r\n0\r\n\r\n",          // bare LF
           "5\r\nhelloXY0\r\n\r\n",          // data not followed by CRLF
           "1000000000000000\r\n",           // more hex digits than any body
           "0\r\nbad trailer\r\n\r\n",       // trailer without a colon
       }) {
    std::string body;
    size_t used = 0;
    EXPECT_EQ(Decode(wire, &body, &used), Status::kMalformed) << wire;
  }
}

TEST(ChunkedDecoder, SizeLimit) {
  std::string body;
  size_t used = 0;
  EXPECT_EQ(Decode("11\r\n", &body, &used, 16), Status::kTooLarge);
  EXPECT_EQ(Decode("8\r\n12345678\r\n9\r\n", &body, &used, 16), Status::kTooLarge);
}

TEST(ChunkedDecoder, OverlongSizeLineWithoutEndIsAnError) {
  std::string body;
  size_t used = 0;
  EXPECT_EQ(Decode("1;" + std::string(5000, 'x'), &body, &used), Status::kMalformed);
  EXPECT_EQ(Decode("1;" + std::string(100, 'x'), &body, &used), Status::kNeedMore);
}

}  // namespace
}  // namespace orcd
