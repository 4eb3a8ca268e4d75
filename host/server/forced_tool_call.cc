#include "host/server/forced_tool_call.h"

#include <optional>
#include <string>

namespace orcd {

std::shared_ptr<const structured::Grammar> ForcedToolCallGrammar(
    ChatOutputFormat format, const std::vector<structured::ToolSchema>& tools) {
  if (tools.empty()) return nullptr;
  const std::optional<ToolCallMarkup> markup = ToolCallMarkupOf(format);
  if (!markup) return nullptr;
  return structured::ToolCallGrammar(
      {std::string(markup->open), std::string(markup->close), std::string(markup->arguments_key)},
      tools);
}

}  // namespace orcd
