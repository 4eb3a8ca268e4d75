#include "host/structured/json_answer_grammar.h"

#include "host/structured/json_grammar_pieces.h"
#include "host/structured/json_schema_grammar.h"

namespace orcd::structured {

std::shared_ptr<const Grammar> JsonAnswerGrammar(const JsonAnswerText& text,
                                                 const Poco::Dynamic::Var& schema) {
  GrammarBuilder b;
  GrammarBuilder::Sequence reasoning;
  AppendMarkup(b, text.reasoning_open, reasoning);
  // Any bytes: control tokens are symbols of their own, so the text cannot
  // spell one, and only reasoning_close's first token leaves it.
  reasoning.push_back(b.Star({b.Range(0x00, 0xFF)}));
  AppendMarkup(b, text.reasoning_close, reasoning);
  GrammarBuilder::Sequence answer;
  answer.push_back(b.Optional(std::move(reasoning)));
  AppendMarkup(b, text.answer_open, answer);
  if (schema.isEmpty()) {
    JsonGrammarPieces pieces(b);
    answer.push_back(pieces.AnyObject());
  } else {
    answer.push_back(AddJsonSchema(b, schema));
  }
  return std::make_shared<const Grammar>(b.Build(b.AddRule({std::move(answer)})));
}

}  // namespace orcd::structured
