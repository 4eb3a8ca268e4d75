// OpenAI's logprobs shapes for generated tokens (values from
// host/sampling/token_logprobs.h). A token's `token` is its text with any
// incomplete UTF-8 shown as U+FFFD; `bytes` are its exact bytes. A
// probability too small for a float's logarithm is reported as -9999
// (OpenAI's convention; JSON has no -Infinity).
#ifndef ORCD_HOST_SERVER_OPENAI_LOGPROBS_H_
#define ORCD_HOST_SERVER_OPENAI_LOGPROBS_H_

#include <cstdint>
#include <span>
#include <string>

#include "host/sampling/token_logprobs.h"
#include "host/tokenizer/tokenizer.h"

namespace orcd {

// Chat: {"content":[{"token","logprob","bytes","top_logprobs":[...]}...],"refusal":null}.
std::string ChatLogprobsJson(const Tokenizer& tokenizer, std::span<const TokenLogprobs> tokens);

// Completions: {"tokens","token_logprobs","top_logprobs":[{token: logprob}],"text_offset"};
// `text_offset` is where the first token's text starts in the completion's
// text (bytes), advanced past the tokens given.
std::string CompletionLogprobsJson(const Tokenizer& tokenizer,
                                   std::span<const TokenLogprobs> tokens, int64_t* text_offset);

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_OPENAI_LOGPROBS_H_
