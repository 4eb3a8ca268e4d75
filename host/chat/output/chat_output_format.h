// Which way a chat model writes tool calls and reasoning, recognised from its
// chat template's text (the markup the template itself uses to render
// assistant tool calls), never from an architecture name; the matching
// parser; and the control tokens that parser must see as text (the
// detokenizer otherwise drops control tokens from the output).
#ifndef ORCD_HOST_CHAT_OUTPUT_CHAT_OUTPUT_FORMAT_H_
#define ORCD_HOST_CHAT_OUTPUT_CHAT_OUTPUT_FORMAT_H_

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "host/chat/output/chat_output_parser.h"
#include "host/structured/json_answer_grammar.h"
#include "host/structured/tool_call_grammar.h"

namespace orcd {

enum class ChatOutputFormat {
  kPlain,           // content only
  kToolCallTags,    // <tool_call>{json}</tool_call> (Qwen2.5, Qwen3, Hermes)
  kJsonCall,        // {"name", "parameters"} / <|python_tag|> (Llama 3.1, 3.2)
  kToolCallsToken,  // [TOOL_CALLS] (Mistral v0.3, Nemo, Small 3.2)
  kHarmony,         // gpt-oss channels: analysis, final, commentary to=functions.NAME
};

// "plain", "tool-call-tags", "json-call", "tool-calls-token", "harmony" (for
// logs): named by their shape, like the C++ chat formats.
std::string_view ChatOutputFormatName(ChatOutputFormat format);

ChatOutputFormat DetectChatOutputFormat(std::string_view template_text);

// A parser for one assistant turn. Without tools (none offered, or
// tool_choice "none") the tool-call formats give plain content; harmony still
// separates reasoning from the answer.
std::unique_ptr<ChatOutputParser> MakeChatOutputParser(ChatOutputFormat format, bool tools_enabled);

// Control-token texts the format's parser reads.
std::vector<std::string_view> ChatOutputMarkupTokens(ChatOutputFormat format);

// How the format writes one tool call, as its template does (the markup
// structured output holds a forced call to: structured::ToolCallText). None
// for formats without tool calls and for [TOOL_CALLS] (whose calls are a
// JSON array after a control token: not held yet).
std::optional<structured::ToolCallText> ToolCallMarkupOf(ChatOutputFormat format);

// Where response_format json goes in a format whose answer is a message of
// its own after an optional reasoning message (harmony); none for the others,
// whose whole reply is the JSON.
std::optional<structured::JsonAnswerText> JsonAnswerMarkupOf(ChatOutputFormat format);

}  // namespace orcd

#endif  // ORCD_HOST_CHAT_OUTPUT_CHAT_OUTPUT_FORMAT_H_
