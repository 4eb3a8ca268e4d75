// The grammars a chat request's settings hold the reply to, in the chat
// format's own text, shared by the chat handlers (OpenAI chat and Responses,
// Anthropic): a forced tool call (OpenAI "required" or a named function,
// Anthropic "any" or "tool"), a JSON answer (response_format, text.format),
// and either of the two (response_format with tools offered as "auto").
// Both are kept across requests (an application sends the same tools and
// schemas each time).
#ifndef ORCD_HOST_SERVER_CHAT_REPLY_GRAMMAR_H_
#define ORCD_HOST_SERVER_CHAT_REPLY_GRAMMAR_H_

#include <memory>
#include <vector>

#include "host/chat/output/chat_output_format.h"
#include "host/structured/tool_call_grammar.h"

namespace orcd {

// Null when nothing is forced, or for formats without a known call markup
// ([TOOL_CALLS]): those are offered as "auto".
std::shared_ptr<const structured::Grammar> ForcedToolCallGrammar(
    ChatOutputFormat format, const std::vector<structured::ToolSchema>& tools);

// response_format json: `plain` (the schema's grammar, compiled when the
// request was parsed: the whole reply is the JSON), or for formats whose
// answer follows a reasoning message (harmony) that message, free, then the
// JSON as the answer. `schema` empty: any object (json_object).
std::shared_ptr<const structured::Grammar> JsonAnswerGrammar(
    ChatOutputFormat format, std::shared_ptr<const structured::Grammar> plain,
    const Poco::Dynamic::Var& schema);

// response_format json with tools offered as "auto": the reply is the JSON
// answer (after the reasoning, for harmony) or one call of `tools`. Null for
// formats without a known call markup ([TOOL_CALLS]).
std::shared_ptr<const structured::Grammar> JsonAnswerOrToolCallGrammar(
    ChatOutputFormat format, const Poco::Dynamic::Var& schema,
    const std::vector<structured::ToolSchema>& tools);

// What a chat request's settings hold the reply to (null: nothing): a forced
// call (`forced`), else the JSON answer or a call of `callable` (json with
// tools offered as "auto"), else the JSON answer (`json`: the response
// format's compiled grammar, null for none; `schema` its schema). Throws
// Error(kUnsupported) for json with tools in a format whose calls no grammar
// holds.
std::shared_ptr<const structured::Grammar> ChatReplyGrammar(
    ChatOutputFormat format, std::shared_ptr<const structured::Grammar> json,
    const Poco::Dynamic::Var& schema, const std::vector<structured::ToolSchema>& forced,
    const std::vector<structured::ToolSchema>& callable);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_CHAT_REPLY_GRAMMAR_H_
