#include "host/server/deadline_header.h"

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeParser.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>

namespace orcd {

std::optional<std::chrono::system_clock::time_point> ParseDeadlineHeader(const std::string& v) {
  if (v.empty() || v.size() > 64) return std::nullopt;
  if (std::all_of(v.begin(), v.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    int64_t ms = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), ms);
    if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
    return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
  }
  // Poco's ISO 8601 parser is lenient; the shape is checked first.
  static const std::regex kRfc3339(
      R"(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2}))");
  if (!std::regex_match(v, kRfc3339)) return std::nullopt;
  Poco::DateTime parsed;
  int tzd = 0;
  if (!Poco::DateTimeParser::tryParse(Poco::DateTimeFormat::ISO8601_FRAC_FORMAT, v, parsed, tzd)) {
    return std::nullopt;
  }
  parsed.makeUTC(tzd);
  const Poco::Timestamp::TimeVal us = parsed.timestamp().epochMicroseconds();
  return std::chrono::system_clock::time_point(std::chrono::microseconds(us));
}

std::chrono::steady_clock::time_point SteadyDeadline(std::chrono::milliseconds remaining) {
  return std::chrono::steady_clock::now() + remaining;
}

}  // namespace orcd
