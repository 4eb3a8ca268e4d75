#include "host/server/chat_reply_grammar.h"

#include <optional>
#include <string>

#include "host/common/status.h"
#include "host/structured/compact_json.h"
#include "host/structured/grammar_cache.h"
#include "host/structured/json_answer_grammar.h"

namespace orcd {

namespace {

std::string SchemaKey(const Poco::Dynamic::Var& schema) {
  return schema.isEmpty() ? std::string("object") : structured::CompactJson(schema);
}

// Grammars are kept across requests (an application offers the same tools
// each time): the format and every tool's name and parameters say the
// whole grammar.
std::string ToolsKey(const std::vector<structured::ToolSchema>& tools) {
  std::string key;
  for (const structured::ToolSchema& tool : tools) {
    // No parameters (any object) is not the schema {} (any value).
    key += '\n' + structured::CompactJson(tool.name) + ' ' +
           (tool.parameters.isEmpty() ? std::string("none")
                                      : structured::CompactJson(tool.parameters));
  }
  return key;
}

}  // namespace

std::shared_ptr<const structured::Grammar> ForcedToolCallGrammar(
    ChatOutputFormat format, const std::vector<structured::ToolSchema>& tools) {
  if (tools.empty()) return nullptr;
  const std::optional<structured::ToolCallText> markup = ToolCallMarkupOf(format);
  if (!markup) return nullptr;
  const std::string key =
      "tool-call " + std::string(ChatOutputFormatName(format)) + ToolsKey(tools);
  return structured::CachedGrammar(key,
                                   [&] { return structured::ToolCallGrammar(*markup, tools); });
}

std::shared_ptr<const structured::Grammar> JsonAnswerOrToolCallGrammar(
    ChatOutputFormat format, const Poco::Dynamic::Var& schema,
    const std::vector<structured::ToolSchema>& tools) {
  const std::optional<structured::ToolCallText> call = ToolCallMarkupOf(format);
  if (!call || tools.empty()) return nullptr;
  const std::optional<structured::JsonAnswerText> answer = JsonAnswerMarkupOf(format);
  const std::string key = "json-or-call " + std::string(ChatOutputFormatName(format)) + " " +
                          SchemaKey(schema) + ToolsKey(tools);
  return structured::CachedGrammar(key, [&] {
    return structured::JsonAnswerOrToolCallGrammar(answer ? &*answer : nullptr, schema, *call,
                                                   tools);
  });
}

std::shared_ptr<const structured::Grammar> JsonAnswerGrammar(
    ChatOutputFormat format, std::shared_ptr<const structured::Grammar> plain,
    const Poco::Dynamic::Var& schema) {
  const std::optional<structured::JsonAnswerText> markup = JsonAnswerMarkupOf(format);
  if (!plain || !markup) return plain;
  const std::string key =
      "json-answer " + std::string(ChatOutputFormatName(format)) + " " + SchemaKey(schema);
  return structured::CachedGrammar(key,
                                   [&] { return structured::JsonAnswerGrammar(*markup, schema); });
}

std::shared_ptr<const structured::Grammar> ChatReplyGrammar(
    ChatOutputFormat format, std::shared_ptr<const structured::Grammar> json,
    const Poco::Dynamic::Var& schema, const std::vector<structured::ToolSchema>& forced,
    const std::vector<structured::ToolSchema>& callable) {
  // Formats whose calls no grammar holds ([TOOL_CALLS]) offer forced tools
  // as "auto".
  if (!forced.empty()) return ForcedToolCallGrammar(format, forced);
  if (callable.empty()) return JsonAnswerGrammar(format, std::move(json), schema);
  std::shared_ptr<const structured::Grammar> either =
      JsonAnswerOrToolCallGrammar(format, schema, callable);
  if (!either) {
    throw Error(ErrorCode::kUnsupported,
                "json output together with tools is not supported for this model's tool-call "
                "format");
  }
  return either;
}

}  // namespace orcd
