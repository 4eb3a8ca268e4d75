// orcd-bench: micro and model benchmarks, one subcommand each.
#include <cstdio>
#include <string>

#include "subcommands.h"

namespace {

struct Subcommand {
  const char* name;
  const char* summary;
  int (*run)(const orcd::bench::Args& args);
};

constexpr Subcommand kSubcommands[] = {
    {"quant", "CPU and CUDA matvec bandwidth of every quant type", &orcd::bench::run_quant},
    {"tokenizer", "encode and streaming-decode MB/s of every fixture tokenizer",
     &orcd::bench::run_tokenizer},
    {"model", "load time, prefill and decode tok/s, TTFT of one model on the engine",
     &orcd::bench::run_model},
    {"sample", "CPU sampler ms per token on a vocabulary of synthetic logits",
     &orcd::bench::run_sample},
    {"grammar", "structured output: trie build, schema compile, per-token check and mask",
     &orcd::bench::run_grammar},
    {"serve", "many clients against a running server (OpenAI streaming): tok/s, TTFT, ITL",
     &orcd::bench::run_serve},
};

void usage(std::FILE* out) {
  std::fprintf(
      out, "usage: orcd-bench <subcommand> [options]   (<subcommand> --help for its options)\n\n");
  for (const Subcommand& s : kSubcommands) std::fprintf(out, "  %-10s %s\n", s.name, s.summary);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(stdout);
    return 0;
  }
  for (const Subcommand& s : kSubcommands) {
    if (name == s.name) return s.run(orcd::bench::Args(argv + 2, argv + argc));
  }
  std::fprintf(stderr, "orcd-bench: unknown subcommand '%s'\n\n", name.c_str());
  usage(stderr);
  return 2;
}
