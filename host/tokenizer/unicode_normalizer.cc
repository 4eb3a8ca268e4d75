#include "host/tokenizer/unicode_normalizer.h"

#include <climits>

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>

#include "host/common/status.h"
#include "host/tokenizer/utf8.h"

namespace orcd {

std::string NormalizeNfc(std::string_view text) {
  if (IsAscii(text) || !IsValidUtf8(text) || text.size() > INT32_MAX) return std::string(text);
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) {
    throw Error(ErrorCode::kInternal,
                std::string("ICU NFC normalizer unavailable: ") + u_errorName(status));
  }
  const icu::StringPiece piece(text.data(), static_cast<int32_t>(text.size()));
  if (nfc->isNormalizedUTF8(piece, status) && U_SUCCESS(status)) return std::string(text);
  status = U_ZERO_ERROR;
  std::string out;
  icu::StringByteSink<std::string> sink(&out, static_cast<int32_t>(text.size()));
  nfc->normalizeUTF8(0, piece, sink, nullptr, status);
  if (U_FAILURE(status)) {
    throw Error(ErrorCode::kInternal,
                std::string("ICU NFC normalization failed: ") + u_errorName(status));
  }
  return out;
}

}  // namespace orcd
