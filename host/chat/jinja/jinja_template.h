// A chat template (the GGUF's tokenizer.chat_template, or a file) compiled
// once and rendered per request, as Hugging Face transformers renders it:
// jinja2 3.1 in an ImmutableSandboxedEnvironment with trim_blocks,
// lstrip_blocks and loop controls, lenient undefined values, transformers'
// tojson, raise_exception and strftime_now.
//
//   JinjaTemplate t = JinjaTemplate::Parse(text);       // TemplateError on bad syntax
//   Dict vars;  vars.Set("messages", ...);  vars.Set("add_generation_prompt", true);
//   std::string prompt = t.Render(vars);                // TemplateError when it fails
//
// Templates are untrusted input: rendering is bounded (Limits) and reaches no
// file, clock (unless RenderOptions::now is left to the real one) or
// environment variable. A parsed template is immutable: Render may run on
// several threads at once.
#ifndef ORCD_HOST_CHAT_JINJA_JINJA_TEMPLATE_H_
#define ORCD_HOST_CHAT_JINJA_JINJA_TEMPLATE_H_

#include <memory>
#include <string>
#include <string_view>

#include "host/chat/jinja/ast.h"
#include "host/chat/jinja/renderer.h"
#include "host/chat/jinja/template_error.h"
#include "host/chat/jinja/value.h"

namespace orcd::jinja {

// Longest template source accepted (real ones are a few KiB to ~20 KiB).
inline constexpr size_t kMaxTemplateBytes = 1u << 20;

class JinjaTemplate {
 public:
  // Throws TemplateError: kSyntax / kUnsupported / kLimit, naming the line.
  static JinjaTemplate Parse(std::string_view source);

  // Throws TemplateError; kRaised carries raise_exception's message as is.
  std::string Render(const Dict& variables, const RenderOptions& options = {}) const;

 private:
  explicit JinjaTemplate(std::shared_ptr<const Body> body) : body_(std::move(body)) {}
  std::shared_ptr<const Body> body_;
};

}  // namespace orcd::jinja

#endif  // ORCD_HOST_CHAT_JINJA_JINJA_TEMPLATE_H_
