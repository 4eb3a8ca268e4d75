#include "host/chat/output/chat_output_format.h"

#include "host/chat/output/harmony_parser.h"
#include "host/chat/output/hermes_tool_parser.h"
#include "host/chat/output/json_tool_call_parser.h"
#include "host/chat/output/tool_calls_token_parser.h"

namespace orcd {
namespace {

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

std::string_view ChatOutputFormatName(ChatOutputFormat format) {
  switch (format) {
    case ChatOutputFormat::kPlain:
      return "plain";
    case ChatOutputFormat::kToolCallTags:
      return "tool-call-tags";
    case ChatOutputFormat::kJsonCall:
      return "json-call";
    case ChatOutputFormat::kToolCallsToken:
      return "tool-calls-token";
    case ChatOutputFormat::kHarmony:
      return "harmony";
  }
  return "plain";
}

ChatOutputFormat DetectChatOutputFormat(std::string_view t) {
  // Each test is the markup the template writes for an assistant's tool call
  // (or, for harmony, its channels), so that the model's output is read in
  // the format the template taught it.
  if (Contains(t, "<|channel|>") && Contains(t, "<|message|>")) return ChatOutputFormat::kHarmony;
  if (Contains(t, "<tool_call>")) return ChatOutputFormat::kToolCallTags;
  if (Contains(t, "[TOOL_CALLS]")) return ChatOutputFormat::kToolCallsToken;
  if (Contains(t, "<|python_tag|>") ||
      (Contains(t, "<|start_header_id|>") && Contains(t, "\"parameters\""))) {
    return ChatOutputFormat::kJsonCall;
  }
  return ChatOutputFormat::kPlain;
}

std::unique_ptr<ChatOutputParser> MakeChatOutputParser(ChatOutputFormat format,
                                                       bool tools_enabled) {
  if (format == ChatOutputFormat::kHarmony) return std::make_unique<HarmonyParser>(tools_enabled);
  if (!tools_enabled) return std::make_unique<PlainContentParser>();
  switch (format) {
    case ChatOutputFormat::kToolCallTags:
      return std::make_unique<HermesToolParser>();
    case ChatOutputFormat::kJsonCall:
      return std::make_unique<JsonToolCallParser>();
    case ChatOutputFormat::kToolCallsToken:
      return std::make_unique<ToolCallsTokenParser>();
    default:
      return std::make_unique<PlainContentParser>();
  }
}

std::vector<std::string_view> ChatOutputMarkupTokens(ChatOutputFormat format) {
  switch (format) {
    case ChatOutputFormat::kToolCallTags:
      return {"<tool_call>", "</tool_call>"};
    case ChatOutputFormat::kJsonCall:
      return {"<|python_tag|>"};
    case ChatOutputFormat::kToolCallsToken:
      return {"[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"};
    case ChatOutputFormat::kHarmony:
      return {"<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|constrain|>"};
    case ChatOutputFormat::kPlain:
      break;
  }
  return {};
}

std::optional<structured::ToolCallText> ToolCallMarkupOf(ChatOutputFormat format) {
  switch (format) {
    case ChatOutputFormat::kToolCallTags:
      return structured::ToolCallText{{{"<tool_call>\n"}}, {}, {{"\n</tool_call>"}}, "arguments"};
    case ChatOutputFormat::kJsonCall:
      return structured::ToolCallText{{}, {}, {}, "parameters"};
    case ChatOutputFormat::kHarmony:
      // The call straight away (no analysis message first); <|call|> ends
      // the turn as the end of generation.
      return structured::ToolCallText{
          {{"<|channel|>", true}, {"commentary to=functions."}},
          {{" "}, {"<|constrain|>", true}, {"json"}, {"<|message|>", true}},
          {},
          ""};
    default:
      return std::nullopt;
  }
}

std::optional<structured::JsonAnswerText> JsonAnswerMarkupOf(ChatOutputFormat format) {
  if (format != ChatOutputFormat::kHarmony) return std::nullopt;
  // The analysis message as the template renders a past one, then the final
  // channel; <|return|> after the JSON ends the turn as the end of generation.
  return structured::JsonAnswerText{{{"<|channel|>", true}, {"analysis"}, {"<|message|>", true}},
                                    {{"<|end|>", true}, {"<|start|>", true}, {"assistant"}},
                                    {{"<|channel|>", true}, {"final"}, {"<|message|>", true}}};
}

}  // namespace orcd
