#include "host/structured/tool_call_grammar.h"

#include "host/common/json_escape.h"
#include "host/common/status.h"
#include "host/structured/json_grammar_pieces.h"
#include "host/structured/json_schema_grammar.h"

namespace orcd::structured {

void AppendMarkup(GrammarBuilder& b, const std::vector<MarkupPiece>& pieces,
                  GrammarBuilder::Sequence& out) {
  for (const MarkupPiece& piece : pieces) {
    if (piece.control_token) {
      out.push_back(b.ControlToken(piece.text));
    } else {
      Append(out, b.Literal(piece.text));
    }
  }
}

GrammarBuilder::Symbol AddToolCall(GrammarBuilder& b, const ToolCallText& text,
                                   const std::vector<ToolSchema>& tools) {
  if (tools.empty()) throw Error(ErrorCode::kInternal, "a tool call grammar of no tools");
  std::vector<GrammarBuilder::Sequence> calls;
  for (const ToolSchema& tool : tools) {
    GrammarBuilder::Symbol arguments;
    if (tool.parameters.isEmpty()) {
      JsonGrammarPieces pieces(b);
      arguments = pieces.AnyObject();
    } else {
      arguments = AddJsonSchema(b, tool.parameters);
    }
    GrammarBuilder::Sequence call;
    AppendMarkup(b, text.before_name, call);
    if (text.arguments_key.empty()) {
      Append(call, b.Literal(tool.name));
      AppendMarkup(b, text.after_name, call);
      call.push_back(arguments);
    } else {
      Append(call, b.Literal(R"({"name":)" + JsonQuote(tool.name) + "," +
                             JsonQuote(text.arguments_key) + ":"));
      call.push_back(arguments);
      Append(call, b.Literal("}"));
    }
    AppendMarkup(b, text.after_arguments, call);
    calls.push_back(std::move(call));
  }
  return GrammarBuilder::Ref(b.AddRule(calls));
}

std::shared_ptr<const Grammar> ToolCallGrammar(const ToolCallText& text,
                                               const std::vector<ToolSchema>& tools) {
  GrammarBuilder b;
  const GrammarBuilder::Symbol call = AddToolCall(b, text, tools);
  return std::make_shared<const Grammar>(b.Build(b.AddRule({{call}})));
}

}  // namespace orcd::structured
