// Structured logging: one JSON object per line. Context fields (worker_id,
// model_ref, ...) set once are added to every line. Prompts and other user
// content must only be logged at debug level.
#ifndef ORCD_HOST_COMMON_LOGGER_H_
#define ORCD_HOST_COMMON_LOGGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/common/json_escape.h"

namespace orcd {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

std::string_view LogLevelName(LogLevel level);
// Parses "debug" | "info" | "warn" | "error"; returns false on anything else.
bool ParseLogLevel(std::string_view text, LogLevel* out);

// A field's value: text (written as a JSON string) or, made by Number, a
// number written bare (e.g. model_load_progress's percent).
struct LogValue {
  LogValue(std::string s) : text(std::move(s)) {}  // NOLINT: strings convert
  LogValue(const char* s) : text(s) {}             // NOLINT
  static LogValue Number(int64_t v) {
    LogValue n(std::to_string(v));
    n.number = true;
    return n;
  }
  std::string text;
  bool number = false;
};

using LogFields = std::vector<std::pair<std::string, LogValue>>;

class Logger {
 public:
  using Sink = std::function<void(const std::string& line)>;

  static Logger& Global();

  void SetLevel(LogLevel level);
  LogLevel level() const;
  // Adds (or replaces) a field written on every line.
  void SetContext(const std::string& key, const std::string& value);
  // Redirects output (tests); an empty sink restores stderr.
  void SetSink(Sink sink);

  void Log(LogLevel level, std::string_view event, std::string_view message,
           const LogFields& fields = {});

 private:
  mutable std::mutex mu_;
  LogLevel level_ = LogLevel::kInfo;
  std::map<std::string, std::string> context_;
  Sink sink_;
};

inline void LogDebug(std::string_view event, std::string_view message,
                     const LogFields& fields = {}) {
  Logger::Global().Log(LogLevel::kDebug, event, message, fields);
}
inline void LogInfo(std::string_view event, std::string_view message,
                    const LogFields& fields = {}) {
  Logger::Global().Log(LogLevel::kInfo, event, message, fields);
}
inline void LogWarn(std::string_view event, std::string_view message,
                    const LogFields& fields = {}) {
  Logger::Global().Log(LogLevel::kWarn, event, message, fields);
}
inline void LogError(std::string_view event, std::string_view message,
                     const LogFields& fields = {}) {
  Logger::Global().Log(LogLevel::kError, event, message, fields);
}

}  // namespace orcd

#endif  // ORCD_HOST_COMMON_LOGGER_H_
