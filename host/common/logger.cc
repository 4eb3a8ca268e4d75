#include "host/common/logger.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace orcd {

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

bool ParseLogLevel(std::string_view text, LogLevel* out) {
  for (LogLevel l : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError}) {
    if (text == LogLevelName(l)) {
      *out = l;
      return true;
    }
  }
  return false;
}

Logger& Logger::Global() {
  static Logger logger;
  return logger;
}

void Logger::SetLevel(LogLevel level) {
  std::lock_guard lock(mu_);
  level_ = level;
}

LogLevel Logger::level() const {
  std::lock_guard lock(mu_);
  return level_;
}

void Logger::SetContext(const std::string& key, const std::string& value) {
  std::lock_guard lock(mu_);
  context_[key] = value;
}

void Logger::SetSink(Sink sink) {
  std::lock_guard lock(mu_);
  sink_ = std::move(sink);
}

static std::string UtcTimestamp() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t secs = system_clock::to_time_t(now);
  const auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(ms));
  return buf;
}

void Logger::Log(LogLevel level, std::string_view event, std::string_view message,
                 const LogFields& fields) {
  std::lock_guard lock(mu_);
  if (level < level_) return;
  std::string line = "{\"ts\":\"" + UtcTimestamp() + "\",\"level\":\"" +
                     std::string(LogLevelName(level)) + "\",\"event\":\"" + JsonEscape(event) +
                     "\"";
  for (const auto& [key, value] : context_) {
    line += ",\"" + JsonEscape(key) + "\":\"" + JsonEscape(value) + "\"";
  }
  for (const auto& [key, value] : fields) {
    line += ",\"" + JsonEscape(key) + "\":";
    line += value.number ? value.text : "\"" + JsonEscape(value.text) + "\"";
  }
  line += ",\"msg\":\"" + JsonEscape(message) + "\"}";
  if (sink_) {
    sink_(line);
  } else {
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
}

}  // namespace orcd
