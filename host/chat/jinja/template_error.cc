#include "host/chat/jinja/template_error.h"

namespace orcd::jinja {
namespace {

// what(): raise_exception's text as the template wrote it (that is what
// transformers shows); the others name their kind and line.
std::string Compose(ErrorKind kind, const std::string& message, int line) {
  if (kind == ErrorKind::kRaised) return message;
  std::string out;
  if (line > 0) out = "chat template line " + std::to_string(line) + ": ";
  out.append(ErrorKindName(kind)).append(": ").append(message);
  return out;
}

ErrorCode CodeFor(ErrorKind kind) {
  return kind == ErrorKind::kUnsupported ? ErrorCode::kUnsupported : ErrorCode::kInvalidArgument;
}

}  // namespace

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kSyntax:
      return "TemplateSyntaxError";
    case ErrorKind::kUnsupported:
      return "UnsupportedError";
    case ErrorKind::kUndefined:
      return "UndefinedError";
    case ErrorKind::kType:
      return "TypeError";
    case ErrorKind::kValue:
      return "ValueError";
    case ErrorKind::kSecurity:
      return "SecurityError";
    case ErrorKind::kLimit:
      return "LimitError";
    case ErrorKind::kRaised:
      return "TemplateError";
  }
  return "TemplateError";
}

TemplateError::TemplateError(ErrorKind kind, std::string message, int line)
    : Error(CodeFor(kind), Compose(kind, message, line)),
      kind_(kind),
      message_(std::move(message)),
      line_(line) {}

}  // namespace orcd::jinja
