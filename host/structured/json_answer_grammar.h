// response_format json in a chat format whose answer is a message of its own
// that may follow a reasoning message (harmony: the analysis channel, then
// the final channel): the reasoning stays free, the answer is the JSON. The
// chat module says what a format's markup is (JsonAnswerMarkupOf); this
// builds the grammar.
#ifndef ORCD_HOST_STRUCTURED_JSON_ANSWER_GRAMMAR_H_
#define ORCD_HOST_STRUCTURED_JSON_ANSWER_GRAMMAR_H_

#include <Poco/Dynamic/Var.h>

#include <memory>
#include <vector>

#include "host/structured/grammar.h"
#include "host/structured/tool_call_grammar.h"

namespace orcd::structured {

// Optionally reasoning_open, any text, reasoning_close; then answer_open and
// the JSON.
struct JsonAnswerText {
  std::vector<MarkupPiece> reasoning_open, reasoning_close, answer_open;
};

// `schema` empty: any JSON object (json_object). Throws Error(kInvalidArgument)
// naming a keyword the schema uses that cannot be honoured.
std::shared_ptr<const Grammar> JsonAnswerGrammar(const JsonAnswerText& text,
                                                 const Poco::Dynamic::Var& schema);

// response_format json with tools offered as "auto" (the format holds the
// answer, not the calls, as OpenAI's does): after the reasoning, either the
// JSON answer or one call of one of `tools` in `call`'s markup. `text` null:
// a format whose reply is one message (no reasoning, the JSON bare).
std::shared_ptr<const Grammar> JsonAnswerOrToolCallGrammar(const JsonAnswerText* text,
                                                           const Poco::Dynamic::Var& schema,
                                                           const ToolCallText& call,
                                                           const std::vector<ToolSchema>& tools);

}  // namespace orcd::structured

#endif  // ORCD_HOST_STRUCTURED_JSON_ANSWER_GRAMMAR_H_
