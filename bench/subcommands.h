// orcd-bench subcommands. Each lives in its own file and is listed in
// main.cc's table; it gets the arguments after its name.
#ifndef ORCD_BENCH_SUBCOMMANDS_H_
#define ORCD_BENCH_SUBCOMMANDS_H_

#include <string>
#include <vector>

namespace orcd::bench {

using Args = std::vector<std::string>;

// orcd-bench quant [--json] [--types T,...] [--threads N] [--min-time S]
int run_quant(const Args& args);

// orcd-bench tokenizer [--json] [--fixtures DIR] [--megabytes N] [--min-time S]
int run_tokenizer(const Args& args);

// orcd-bench model --model M.gguf [--json] [--threads N] [--prompt N] [--gen N] [--repeat R]
//                  [--activations q8|f32]
int run_model(const Args& args);

// orcd-bench sample [--json] [--vocab N] [--tokens N] [--repeat R] [--logits llm|flat] [--seed S]
int run_sample(const Args& args);

// orcd-bench grammar [--json] [--vocab VOCAB.gguf] [--suite DIR] [--show-slow]
int run_grammar(const Args& args);

// orcd-bench serve [--url URL] [--clients C] [--requests N] [--warmup W] [--seed S]
//                  [--prompt-words MIN,MAX] [--output-tokens MIN,MAX] [--pid PID] [--json]
int run_serve(const Args& args);

}  // namespace orcd::bench

#endif  // ORCD_BENCH_SUBCOMMANDS_H_
