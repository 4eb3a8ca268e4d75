#include "host/chat/output/json_scan.h"

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>

namespace orcd {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool EndsScalar(char c) { return IsSpace(c) || c == ',' || c == '}' || c == ']'; }

bool StartsScalar(char c) {
  return c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n';
}

}  // namespace

size_t JsonValueScanner::Feed(std::string_view text) {
  size_t i = 0;
  for (; i < text.size() && !done_ && !failed_; ++i) {
    const char c = text[i];
    if (!started_) {
      if (IsSpace(c)) continue;
      started_ = true;
      first_ = c;
      if (c == '{' || c == '[') {
        depth_ = 1;
      } else if (c == '"') {
        in_string_ = true;
      } else if (StartsScalar(c)) {
        scalar_ = true;
      } else {
        failed_ = true;
        return i;
      }
      continue;
    }
    if (scalar_) {
      if (EndsScalar(c)) {
        done_ = true;
        return i;
      }
      continue;
    }
    if (in_string_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
        if (depth_ == 0) {
          done_ = true;
          return i + 1;
        }
      }
      continue;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (c == '}' || c == ']') {
      if (--depth_ == 0) {
        done_ = true;
        return i + 1;
      }
    }
  }
  return i;
}

void JsonValueScanner::Finish() {
  if (scalar_ && !failed_) done_ = true;
}

std::optional<std::string> DecodeJsonString(std::string_view literal) {
  if (literal.size() < 2 || literal.front() != '"' || literal.back() != '"') return std::nullopt;
  try {
    Poco::JSON::Parser parser;
    const Poco::Dynamic::Var v = parser.parse("[" + std::string(literal) + "]");
    const Poco::JSON::Array::Ptr array = v.extract<Poco::JSON::Array::Ptr>();
    if (array->size() != 1 || !array->get(0).isString()) return std::nullopt;
    return array->get(0).convert<std::string>();
  } catch (const Poco::Exception&) {
    return std::nullopt;
  }
}

size_t PartialMarkerLength(std::string_view text, std::initializer_list<std::string_view> markers) {
  size_t longest = 0;
  for (const std::string_view marker : markers) {
    const size_t max_len = std::min(text.size(), marker.size() - 1);
    for (size_t len = max_len; len > longest; --len) {
      if (text.substr(text.size() - len) == marker.substr(0, len)) {
        longest = len;
        break;
      }
    }
  }
  return longest;
}

std::string_view TrimLeft(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  return text;
}

}  // namespace orcd
