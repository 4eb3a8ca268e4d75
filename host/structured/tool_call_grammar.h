// The grammar of one tool call in a chat format's own text (tool_choice
// "required" or a named function): the format's markup, the name of one of
// the functions, and an instance of that function's parameters schema. The
// chat module says what a format's markup is (ToolCallMarkupOf); this builds
// the grammar.
#ifndef ORCD_HOST_STRUCTURED_TOOL_CALL_GRAMMAR_H_
#define ORCD_HOST_STRUCTURED_TOOL_CALL_GRAMMAR_H_

#include <memory>
#include <string>
#include <vector>

#include <Poco/Dynamic/Var.h>

#include "host/structured/grammar.h"

namespace orcd::structured {

// Text, or one control token of that text (harmony's "<|channel|>").
struct MarkupPiece {
  std::string text;
  bool control_token = false;
};

// Two shapes. With an arguments key: before_name, then the JSON object
// {"name": NAME, "<arguments_key>": ARGS}, then after_arguments (Qwen's
// <tool_call> tags, Llama 3.1's JSON). Without: before_name, NAME as text,
// after_name, ARGS, after_arguments (harmony: "<|channel|>commentary
// to=functions.NAME <|constrain|>json<|message|>ARGS").
struct ToolCallText {
  std::vector<MarkupPiece> before_name, after_name, after_arguments;
  std::string arguments_key;
};

// Appends `pieces` to `out`: control tokens as themselves, text as bytes.
void AppendMarkup(GrammarBuilder& b, const std::vector<MarkupPiece>& pieces,
                  GrammarBuilder::Sequence& out);

struct ToolSchema {
  std::string name;
  Poco::Dynamic::Var parameters;  // a JSON schema; empty: any object
};

// A rule for one call of one of `tools` (to build a larger grammar).
// Throws Error(kInvalidArgument) naming the keyword a parameters schema
// uses that cannot be honoured.
GrammarBuilder::Symbol AddToolCall(GrammarBuilder& b, const ToolCallText& text,
                                   const std::vector<ToolSchema>& tools);

// The grammar of one call (AddToolCall's rule).
std::shared_ptr<const Grammar> ToolCallGrammar(const ToolCallText& text,
                                               const std::vector<ToolSchema>& tools);

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_TOOL_CALL_GRAMMAR_H_
