// tool_choice that forces a call (OpenAI "required" or a named function,
// Anthropic "any" or "tool"): the grammar holding the reply to one call in
// the chat format's own text, shared by the OpenAI and Anthropic handlers.
#ifndef ORCD_HOST_SERVER_FORCED_TOOL_CALL_H_
#define ORCD_HOST_SERVER_FORCED_TOOL_CALL_H_

#include <memory>
#include <vector>

#include "host/chat/output/chat_output_format.h"
#include "host/structured/tool_call_grammar.h"

namespace orcd {

// Null when nothing is forced, or for formats without a known call markup
// ([TOOL_CALLS]): those are offered as "auto".
std::shared_ptr<const structured::Grammar> ForcedToolCallGrammar(
    ChatOutputFormat format, const std::vector<structured::ToolSchema>& tools);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_FORCED_TOOL_CALL_H_
