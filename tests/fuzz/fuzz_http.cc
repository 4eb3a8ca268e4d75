// Fuzz target: the HTTP/1.1 framing every request passes before a handler
// sees it: the strict request-head parser and the chunked body decoder.
// The input is split where a client's packets would split it: the head at
// its "\r\n\r\n", the rest fed to the chunked decoder in pieces whose sizes
// come from the first byte. Invariants: a parsed head's framing is exactly
// one of none / Content-Length / chunked, a rejection carries a 4xx/5xx
// status, and the decoder never consumes more than it was given nor grows
// the body past its limit.
#include <algorithm>
#include <string>
#include <string_view>
#include <variant>

#include "host/server/chunked_decoder.h"
#include "host/server/http_request_head.h"
#include "tests/fuzz/fuzz_support.h"

namespace orcd::fuzz {
namespace {

constexpr size_t kMaxBody = 4096;

void ParseHead(std::string_view wire) {
  const size_t end = FindEndOfHead(wire);
  if (end == std::string_view::npos) return;
  Check(end <= wire.size(), "head end inside the input");
  auto parsed = ParseRequestHead(wire.substr(0, end));
  if (const auto* rejection = std::get_if<HttpRejection>(&parsed)) {
    Check(rejection->status >= 400 && rejection->status <= 505, "a rejection is 4xx or 5xx");
    return;
  }
  const RequestHead& head = std::get<RequestHead>(parsed);
  Check(!head.method.empty() && !head.path.empty() && head.path.front() == '/',
        "a parsed head has a method and an absolute path");
  Check(head.framing != BodyFraming::kContentLength || head.Find("Transfer-Encoding") == nullptr,
        "never both Content-Length and Transfer-Encoding");
}

void DecodeChunked(std::string_view body, size_t piece) {
  ChunkedDecoder decoder(kMaxBody);
  std::string out;
  std::string pending;
  for (size_t at = 0; at < body.size();) {
    const size_t take = std::min(piece, body.size() - at);
    pending.append(body.substr(at, take));
    at += take;
    size_t consumed = 0;
    const ChunkedDecoder::Status status = decoder.Feed(pending, &out, &consumed);
    Check(consumed <= pending.size(), "the decoder consumes only what it was given");
    Check(out.size() <= kMaxBody, "the body stays within its limit");
    if (status != ChunkedDecoder::Status::kNeedMore) return;
    pending.erase(0, consumed);
  }
}

}  // namespace
}  // namespace orcd::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] % 64;
  const std::string_view wire(reinterpret_cast<const char*>(data) + 1, size - 1);
  orcd::fuzz::ParseHead(wire);
  // The body is what follows the head (or everything, when there is none).
  const size_t end = orcd::FindEndOfHead(wire);
  orcd::fuzz::DecodeChunked(end == std::string_view::npos ? wire : wire.substr(end), piece);
  return 0;
}
