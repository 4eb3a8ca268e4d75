#include "host/server/chunked_decoder.h"

#include <algorithm>

namespace orcd {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// No control characters but tab inside a line (a bare CR or LF included).
bool IsCleanLine(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c == '\t' || (c >= 0x20 && c != 0x7f);
  });
}

}  // namespace

ChunkedDecoder::Status ChunkedDecoder::ParseSizeLine(std::string_view line) {
  constexpr size_t kMaxHexDigits = 15;  // below 2^60
  size_t i = 0;
  uint64_t size = 0;
  for (; i < line.size() && HexValue(line[i]) >= 0; ++i) {
    if (i == kMaxHexDigits) return Status::kMalformed;
    size = size * 16 + static_cast<uint64_t>(HexValue(line[i]));
  }
  if (i == 0 || !IsCleanLine(line)) return Status::kMalformed;
  // Only chunk extensions may follow: BWS ";" ...
  std::string_view rest = line.substr(i);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  if (!rest.empty() && rest.front() != ';') return Status::kMalformed;
  if (size > max_body_ - body_bytes_) return Status::kTooLarge;
  remaining_ = size;
  phase_ = size == 0 ? Phase::kTrailer : Phase::kData;
  return Status::kNeedMore;
}

ChunkedDecoder::Status ChunkedDecoder::Feed(std::string_view input, std::string* body,
                                            size_t* consumed) {
  size_t pos = 0;
  auto done = [&](Status s) {
    *consumed = pos;
    return s;
  };
  for (;;) {
    if (phase_ == Phase::kData) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, input.size() - pos));
      body->append(input.substr(pos, n));
      pos += n;
      body_bytes_ += n;
      remaining_ -= n;
      if (remaining_ > 0) return done(Status::kNeedMore);
      phase_ = Phase::kDataEnd;
      continue;
    }
    if (phase_ == Phase::kDataEnd) {
      if (input.size() - pos < 2) {
        if (input.size() > pos && input[pos] != '\r') return done(Status::kMalformed);
        return done(Status::kNeedMore);
      }
      if (input.substr(pos, 2) != "\r\n") return done(Status::kMalformed);
      pos += 2;
      phase_ = Phase::kSize;
      continue;
    }
    // kSize and kTrailer work on whole lines.
    const size_t eol = input.find("\r\n", pos);
    if (eol == std::string_view::npos) {
      const size_t partial = input.size() - pos;
      if (partial > kMaxLineBytes || input.substr(pos).find('\n') != std::string_view::npos) {
        return done(Status::kMalformed);
      }
      return done(Status::kNeedMore);
    }
    const std::string_view line = input.substr(pos, eol - pos);
    if (line.size() > kMaxLineBytes) return done(Status::kMalformed);
    pos = eol + 2;
    if (phase_ == Phase::kSize) {
      const Status s = ParseSizeLine(line);
      if (s != Status::kNeedMore) return done(s);
      continue;
    }
    if (line.empty()) return done(Status::kDone);  // end of the trailer section
    trailer_bytes_ += line.size() + 2;
    const size_t colon = line.find(':');
    if (trailer_bytes_ > kMaxTrailerBytes || colon == 0 || colon == std::string_view::npos ||
        !IsCleanLine(line) || line.front() == ' ' || line.front() == '\t') {
      return done(Status::kMalformed);
    }
  }
}

}  // namespace orcd
