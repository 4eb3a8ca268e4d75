#include "host/server/forced_tool_call.h"

#include <optional>
#include <string>

namespace orcd {

std::shared_ptr<const structured::Grammar> ForcedToolCallGrammar(
    ChatOutputFormat format, const std::vector<structured::ToolSchema>& tools) {
  if (tools.empty()) return nullptr;
  const std::optional<ToolCallMarkup> markup = ToolCallMarkupOf(format);
  if (!markup) return nullptr;
  const auto pieces = [](const std::vector<ToolCallMarkupPiece>& in) {
    std::vector<structured::MarkupPiece> out;
    for (const ToolCallMarkupPiece& p : in) out.push_back({std::string(p.text), p.control_token});
    return out;
  };
  return structured::ToolCallGrammar(
      {pieces(markup->before_name), pieces(markup->after_name), pieces(markup->after_arguments),
       std::string(markup->arguments_key)},
      tools);
}

}  // namespace orcd
