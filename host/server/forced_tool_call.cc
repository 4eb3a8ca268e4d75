#include "host/server/forced_tool_call.h"

#include <optional>
#include <string>

namespace orcd {

std::shared_ptr<const structured::Grammar> ForcedToolCallGrammar(
    ChatOutputFormat format, const std::vector<structured::ToolSchema>& tools) {
  if (tools.empty()) return nullptr;
  const std::optional<structured::ToolCallText> markup = ToolCallMarkupOf(format);
  return markup ? structured::ToolCallGrammar(*markup, tools) : nullptr;
}

}  // namespace orcd
