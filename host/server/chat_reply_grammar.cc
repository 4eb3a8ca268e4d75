#include "host/server/chat_reply_grammar.h"

#include <optional>
#include <string>

#include "host/structured/compact_json.h"
#include "host/structured/grammar_cache.h"

namespace orcd {

std::shared_ptr<const structured::Grammar> ForcedToolCallGrammar(
    ChatOutputFormat format, const std::vector<structured::ToolSchema>& tools) {
  if (tools.empty()) return nullptr;
  const std::optional<structured::ToolCallText> markup = ToolCallMarkupOf(format);
  if (!markup) return nullptr;
  // Kept across requests (an application offers the same tools each time):
  // the format and every tool's name and parameters say the whole grammar.
  std::string key = "tool-call " + std::string(ChatOutputFormatName(format));
  for (const structured::ToolSchema& tool : tools) {
    // No parameters (any object) is not the schema {} (any value).
    key += '\n' + structured::CompactJson(tool.name) + ' ' +
           (tool.parameters.isEmpty() ? std::string("none")
                                      : structured::CompactJson(tool.parameters));
  }
  return structured::CachedGrammar(key,
                                   [&] { return structured::ToolCallGrammar(*markup, tools); });
}

std::shared_ptr<const structured::Grammar> JsonAnswerGrammar(
    ChatOutputFormat format, std::shared_ptr<const structured::Grammar> plain,
    const Poco::Dynamic::Var& schema) {
  const std::optional<structured::JsonAnswerText> markup = JsonAnswerMarkupOf(format);
  if (!plain || !markup) return plain;
  const std::string key =
      "json-answer " + std::string(ChatOutputFormatName(format)) + " " +
      (schema.isEmpty() ? std::string("object") : structured::CompactJson(schema));
  return structured::CachedGrammar(key,
                                   [&] { return structured::JsonAnswerGrammar(*markup, schema); });
}

}  // namespace orcd
