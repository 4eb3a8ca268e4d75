#include "host/server/openai_logprobs.h"

#include <cmath>
#include <cstdio>

#include "host/common/json_escape.h"
#include "host/tokenizer/utf8.h"

namespace orcd {
namespace {

std::string Text(const std::string& piece) {
  std::string out;
  for (size_t pos = 0; pos < piece.size();) {
    const Utf8Scan scan = ScanUtf8(piece, pos);
    if (scan.kind == Utf8Scan::kValid) {
      out.append(piece, pos, scan.length);
    } else {
      out += kUtf8Replacement;
    }
    pos += scan.kind == Utf8Scan::kIncomplete ? piece.size() - pos : scan.length;
  }
  return "\"" + JsonEscape(out) + "\"";
}

std::string Number(float logprob) {
  if (!std::isfinite(logprob)) return "-9999.0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(logprob));
  return buf;
}

std::string Bytes(const std::string& piece) {
  std::string out = "[";
  for (size_t i = 0; i < piece.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(static_cast<unsigned char>(piece[i]));
  }
  return out + "]";
}

std::string ChatEntry(const Tokenizer& tokenizer, const TokenLogprob& t) {
  const std::string piece = tokenizer.TokenToPiece(t.id);
  return "{\"token\":" + Text(piece) + ",\"logprob\":" + Number(t.logprob) +
         ",\"bytes\":" + Bytes(piece);
}

}  // namespace

std::string ChatLogprobsJson(const Tokenizer& tokenizer, std::span<const TokenLogprobs> tokens) {
  std::string out = "{\"content\":[";
  for (size_t k = 0; k < tokens.size(); ++k) {
    if (k > 0) out += ",";
    out += ChatEntry(tokenizer, tokens[k].chosen) + ",\"top_logprobs\":[";
    for (size_t j = 0; j < tokens[k].top.size(); ++j) {
      if (j > 0) out += ",";
      out += ChatEntry(tokenizer, tokens[k].top[j]) + "}";
    }
    out += "]}";
  }
  return out + "],\"refusal\":null}";
}

std::string CompletionLogprobsJson(const Tokenizer& tokenizer,
                                   std::span<const TokenLogprobs> tokens, int64_t* text_offset) {
  std::string texts, values, tops, offsets;
  for (size_t k = 0; k < tokens.size(); ++k) {
    const char* sep = k > 0 ? "," : "";
    const std::string piece = tokenizer.TokenToPiece(tokens[k].chosen.id);
    texts += sep + Text(piece);
    values += sep + Number(tokens[k].chosen.logprob);
    offsets += sep + std::to_string(*text_offset);
    *text_offset += static_cast<int64_t>(piece.size());
    tops += std::string(sep) + "{";
    for (size_t j = 0; j < tokens[k].top.size(); ++j) {
      if (j > 0) tops += ",";
      tops += Text(tokenizer.TokenToPiece(tokens[k].top[j].id)) + ":" +
              Number(tokens[k].top[j].logprob);
    }
    tops += "}";
  }
  return "{\"tokens\":[" + texts + "],\"token_logprobs\":[" + values + "],\"top_logprobs\":[" +
         tops + "],\"text_offset\":[" + offsets + "]}";
}

}  // namespace orcd
