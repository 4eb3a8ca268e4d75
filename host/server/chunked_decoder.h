// Incremental decoder of a chunked request body (RFC 9112 §7.1). Strict: a
// chunk-size line is hex digits, optionally followed by ";" extensions, then
// CRLF; anything else (trailing garbage, bare LF, missing CRLF after the data)
// is an error, never re-read as the start of another request.
#ifndef ORCD_HOST_SERVER_CHUNKED_DECODER_H_
#define ORCD_HOST_SERVER_CHUNKED_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace orcd {

class ChunkedDecoder {
 public:
  enum class Status { kNeedMore, kDone, kMalformed, kTooLarge };

  explicit ChunkedDecoder(size_t max_body_bytes) : max_body_(max_body_bytes) {}

  // Decodes from the front of `input`, appending data to `*body`; sets
  // `*consumed` to the bytes used. After kDone, the rest of `input` belongs to
  // the next request.
  Status Feed(std::string_view input, std::string* body, size_t* consumed);

 private:
  enum class Phase { kSize, kData, kDataEnd, kTrailer };
  static constexpr size_t kMaxLineBytes = 4096;
  static constexpr size_t kMaxTrailerBytes = 8192;

  Status ParseSizeLine(std::string_view line);

  size_t max_body_;
  size_t body_bytes_ = 0;
  Phase phase_ = Phase::kSize;
  uint64_t remaining_ = 0;  // of the current chunk's data
  size_t trailer_bytes_ = 0;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_CHUNKED_DECODER_H_
