#include "host/structured/json_answer_grammar.h"

#include "host/structured/json_grammar_pieces.h"
#include "host/structured/json_schema_grammar.h"

namespace orcd::structured {
namespace {

// The reply: the reasoning (optional, where `text` has one), then the JSON
// answer, or (`call` not null) one of `tools`' calls instead.
std::shared_ptr<const Grammar> ReplyGrammar(const JsonAnswerText* text,
                                            const Poco::Dynamic::Var& schema,
                                            const ToolCallText* call,
                                            const std::vector<ToolSchema>& tools) {
  GrammarBuilder b;
  GrammarBuilder::Sequence reply;
  if (text != nullptr) {
    GrammarBuilder::Sequence reasoning;
    AppendMarkup(b, text->reasoning_open, reasoning);
    // Any bytes: control tokens are symbols of their own, so the text cannot
    // spell one, and only reasoning_close's first token leaves it.
    reasoning.push_back(b.Star({b.Range(0x00, 0xFF)}));
    AppendMarkup(b, text->reasoning_close, reasoning);
    reply.push_back(b.Optional(std::move(reasoning)));
  }
  GrammarBuilder::Sequence answer;
  if (text != nullptr) AppendMarkup(b, text->answer_open, answer);
  if (schema.isEmpty()) {
    JsonGrammarPieces pieces(b);
    answer.push_back(pieces.AnyObject());
  } else {
    answer.push_back(AddJsonSchema(b, schema));
  }
  if (call != nullptr) {
    reply.push_back(
        GrammarBuilder::Ref(b.AddRule({std::move(answer), {AddToolCall(b, *call, tools)}})));
  } else {
    Append(reply, answer);
  }
  return std::make_shared<const Grammar>(b.Build(b.AddRule({std::move(reply)})));
}

}  // namespace

std::shared_ptr<const Grammar> JsonAnswerGrammar(const JsonAnswerText& text,
                                                 const Poco::Dynamic::Var& schema) {
  return ReplyGrammar(&text, schema, nullptr, {});
}

std::shared_ptr<const Grammar> JsonAnswerOrToolCallGrammar(const JsonAnswerText* text,
                                                           const Poco::Dynamic::Var& schema,
                                                           const ToolCallText& call,
                                                           const std::vector<ToolSchema>& tools) {
  return ReplyGrammar(text, schema, &call, tools);
}

}  // namespace orcd::structured
