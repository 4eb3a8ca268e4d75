// The grammar of one tool call in a chat format's own text (tool_choice
// "required" or a named function): the format's opening text, a JSON object
// {"name": <one of the functions>, "<arguments key>": <an instance of that
// function's parameters schema>}, its closing text. The chat module says
// what a format's text is (ToolCallShapeFor); this builds the grammar.
#ifndef ORCD_HOST_STRUCTURED_TOOL_CALL_GRAMMAR_H_
#define ORCD_HOST_STRUCTURED_TOOL_CALL_GRAMMAR_H_

#include <memory>
#include <string>
#include <vector>

#include <Poco/Dynamic/Var.h>

#include "host/structured/grammar.h"

namespace orcd::structured {

struct ToolCallText {
  std::string open;           // before the object, e.g. "<tool_call>\n"
  std::string close;          // after it, e.g. "\n</tool_call>"
  std::string arguments_key;  // "arguments", or "parameters" (Llama 3.1)
};

struct ToolSchema {
  std::string name;
  Poco::Dynamic::Var parameters;  // a JSON schema; empty: any object
};

// Throws Error(kInvalidArgument) naming the keyword a parameters schema
// uses that cannot be honoured.
std::shared_ptr<const Grammar> ToolCallGrammar(const ToolCallText& text,
                                               const std::vector<ToolSchema>& tools);

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_TOOL_CALL_GRAMMAR_H_
