#include "host/structured/tool_call_grammar.h"

#include "host/common/json_escape.h"
#include "host/common/status.h"
#include "host/structured/json_grammar_pieces.h"
#include "host/structured/json_schema_grammar.h"

namespace orcd::structured {

std::shared_ptr<const Grammar> ToolCallGrammar(const ToolCallText& text,
                                               const std::vector<ToolSchema>& tools) {
  if (tools.empty()) throw Error(ErrorCode::kInternal, "a tool call grammar of no tools");
  GrammarBuilder b;
  std::vector<GrammarBuilder::Sequence> calls;
  for (const ToolSchema& tool : tools) {
    GrammarBuilder::Sequence call = b.Literal(text.open);
    Append(call, b.Literal(R"({"name":)" + JsonQuote(tool.name) + "," +
                           JsonQuote(text.arguments_key) + ":"));
    if (tool.parameters.isEmpty()) {
      JsonGrammarPieces pieces(b);
      call.push_back(pieces.AnyObject());
    } else {
      call.push_back(AddJsonSchema(b, tool.parameters));
    }
    Append(call, b.Literal("}" + text.close));
    calls.push_back(std::move(call));
  }
  return std::make_shared<const Grammar>(b.Build(b.AddRule(calls)));
}

}  // namespace orcd::structured
