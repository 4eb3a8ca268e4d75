// orcd-run's command line: what to load, what to feed it, how to sample.
#ifndef ORCD_TOOLS_RUN_RUN_OPTIONS_H_
#define ORCD_TOOLS_RUN_RUN_OPTIONS_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "host/sampling/sampler.h"

namespace orcd::run {

struct RunOptions {
  std::filesystem::path model;
  std::optional<std::string> prompt;           // text, tokenized with the model's tokenizer
  std::optional<std::vector<int32_t>> tokens;  // or the ids themselves
  int64_t n_predict = 32;
  SamplerConfig sampling{.temperature = 0.0};  // greedy unless told otherwise
  std::string device = "cpu";
  int threads = 0;                    // 0 = every hardware thread
  bool q8_decode_activations = true;  // --activations q8|f32
  int64_t context = 0;                // 0 = the model's own
  std::string kv_type = "f16";        // --kv-type f16|f32|q8_0
  std::optional<std::filesystem::path> dump_logits;
  std::vector<std::filesystem::path> plugin_dirs;  // empty = the default search path
  bool ignore_eos = false;
  bool quiet = false;  // no timing lines on stderr
};

// The usage text (exit status 2 goes with it).
std::string RunUsage();

// Parses argv. Returns nullopt for --help; throws UsageError on a bad
// command line.
struct UsageError {
  std::string message;
};
std::optional<RunOptions> ParseRunOptions(int argc, char** argv);

// "1,2, 3" -> {1, 2, 3}; throws UsageError on anything else.
std::vector<int32_t> ParseTokenList(const std::string& list);

}  // namespace orcd::run

#endif  // ORCD_TOOLS_RUN_RUN_OPTIONS_H_
