// Binding call arguments to a builtin's parameters the way Python does:
// by position or by name, once, with TypeErrors for extras.
#ifndef ORCD_HOST_CHAT_JINJA_CALL_ARGS_H_
#define ORCD_HOST_CHAT_JINJA_CALL_ARGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/chat/jinja/value.h"

namespace orcd::jinja {

class ArgReader {
 public:
  ArgReader(std::string_view function, const CallArgs& args) : function_(function), args_(args) {}

  // The argument at position `pos` or named `name`; nullopt when not given.
  std::optional<Value> Take(size_t pos, std::string_view name);
  Value Take(size_t pos, std::string_view name, Value fallback);
  // The same, required to be present.
  Value Require(size_t pos, std::string_view name);
  // Typed forms: TypeError when the argument has another type.
  std::string TakeString(size_t pos, std::string_view name, std::string fallback);
  std::optional<std::string> TakeOptionalString(size_t pos, std::string_view name);
  int64_t TakeInt(size_t pos, std::string_view name, int64_t fallback);
  bool TakeBool(size_t pos, std::string_view name, bool fallback);
  // Positional arguments from `pos` on (for *args).
  ValueList Rest(size_t pos);
  // Keyword arguments nothing took yet (for **kwargs).
  std::vector<std::pair<std::string, Value>> RestKeywords();
  // TypeError for arguments nothing took.
  void Finish() const;

 private:
  std::string function_;
  const CallArgs& args_;
  size_t positional_used_ = 0;
  std::vector<std::string> keywords_used_;
};

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_CALL_ARGS_H_
