// Errors of the chat-template engine. Each carries a kind named after the
// Python exception jinja2 raises for the same fault (so a failure reads the
// same as in transformers) and, once known, the template line it came from.
#ifndef ORCD_HOST_CHAT_JINJA_TEMPLATE_ERROR_H_
#define ORCD_HOST_CHAT_JINJA_TEMPLATE_ERROR_H_

#include <string>
#include <string_view>

#include "host/common/status.h"

namespace orcd::jinja {

enum class ErrorKind {
  kSyntax,       // TemplateSyntaxError: the template does not parse
  kUnsupported,  // valid Jinja this engine does not implement (or forbids: files)
  kUndefined,    // UndefinedError: an undefined value was used
  kType,         // TypeError: operand types do not fit
  kValue,        // ValueError, ZeroDivisionError, IndexError and the like
  kSecurity,     // SecurityError: the sandbox refused (e.g. list.append)
  kLimit,        // a bound on output, loops, recursion or work was reached
  kRaised,       // the template called raise_exception(message)
};

// "TemplateSyntaxError", "UndefinedError", "TypeError", ...
std::string_view ErrorKindName(ErrorKind kind);

class TemplateError : public Error {
 public:
  // line 0: not known yet (the renderer adds it while unwinding).
  TemplateError(ErrorKind kind, std::string message, int line = 0);

  ErrorKind kind() const { return kind_; }
  int line() const { return line_; }
  // The bare message: for kRaised exactly the template's text.
  const std::string& message() const { return message_; }
  TemplateError WithLine(int line) const { return TemplateError(kind_, message_, line); }

 private:
  ErrorKind kind_;
  std::string message_;
  int line_;
};

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_TEMPLATE_ERROR_H_
