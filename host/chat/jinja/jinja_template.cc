#include "host/chat/jinja/jinja_template.h"

#include "host/chat/jinja/lexer.h"
#include "host/chat/jinja/parser.h"

namespace orcd::jinja {

JinjaTemplate JinjaTemplate::Parse(std::string_view source) {
  if (source.size() > kMaxTemplateBytes) {
    throw TemplateError(ErrorKind::kLimit, "the template is longer than " +
                                               std::to_string(kMaxTemplateBytes) + " bytes");
  }
  return JinjaTemplate(std::make_shared<const Body>(jinja::Parse(Tokenize(source))));
}

std::string JinjaTemplate::Render(const Dict& variables, const RenderOptions& options) const {
  Renderer renderer(*body_, options);
  return renderer.Render(variables);
}

}  // namespace orcd::jinja
