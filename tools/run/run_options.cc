#include "tools/run/run_options.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace orcd::run {
namespace {

int64_t ToInt(const std::string& flag, const std::string& text, int64_t min, int64_t max) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < min || v > max) {
    throw UsageError{flag + " wants an integer in [" + std::to_string(min) + ", " +
                     std::to_string(max) + "], got '" + text + "'"};
  }
  return v;
}

double ToDouble(const std::string& flag, const std::string& text, double min, double max) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !(v >= min && v <= max)) {
    throw UsageError{flag + " wants a number in [" + std::to_string(min) + ", " +
                     std::to_string(max) + "], got '" + text + "'"};
  }
  return v;
}

}  // namespace

std::string RunUsage() {
  return "usage: orcd-run --model M.gguf (--prompt TEXT | --tokens 1,2,3) [options]\n"
         "  -n N                      tokens to generate (default 32; 0 = prefill only)\n"
         "  --temperature T           0 = greedy (default 0)\n"
         "  --top-k K  --top-p P  --min-p P  --repetition-penalty R  --seed S\n"
         "  --device cpu|cuda         (default cpu; cuda: GPU 0, never a fallback to cpu)\n"
         "  --threads N               (default: every hardware thread)\n"
         "  --activations q8|f32      decode rounds activations to 8 bits before quantized\n"
         "                            weights (default q8, as llama.cpp) or keeps f32\n"
         "  --ctx N                   context length (default: the model's)\n"
         "  --kv-type f16|f32|q8_0    the KV cache's type (default f16; q8_0: CPU only)\n"
         "  --dump-logits FILE        float32 rows [positions][vocab]: every prompt position,\n"
         "                            then one row per generated token\n"
         "  --ignore-eos              keep generating past end-of-generation tokens\n"
         "  --plugin-dir DIR          look for plugins in DIR (repeatable)\n"
         "  --quiet                   no timing summary on stderr\n"
         "exit status: 0 ok, 1 error (model, device, I/O), 2 usage\n";
}

std::vector<int32_t> ParseTokenList(const std::string& list) {
  std::vector<int32_t> ids;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t a = item.find_first_not_of(" \t");
    const size_t b = item.find_last_not_of(" \t");
    if (a == std::string::npos) throw UsageError{"--tokens has an empty entry: '" + list + "'"};
    ids.push_back(static_cast<int32_t>(ToInt("--tokens", item.substr(a, b - a + 1), 0, INT32_MAX)));
  }
  if (ids.empty()) throw UsageError{"--tokens is empty"};
  return ids;
}

std::optional<RunOptions> ParseRunOptions(int argc, char** argv) {
  RunOptions o;
  bool have_model = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") return std::nullopt;
    if (a == "--ignore-eos") {
      o.ignore_eos = true;
      continue;
    }
    if (a == "--quiet") {
      o.quiet = true;
      continue;
    }
    if (i + 1 >= argc) throw UsageError{"unknown flag or missing value: " + a};
    const std::string v = argv[++i];
    if (a == "--model" || a == "-m") {
      o.model = v;
      have_model = true;
    } else if (a == "--prompt" || a == "-p") {
      o.prompt = v;
    } else if (a == "--tokens") {
      o.tokens = ParseTokenList(v);
    } else if (a == "-n" || a == "--n-predict") {
      o.n_predict = ToInt(a, v, 0, 1 << 24);
    } else if (a == "--temperature" || a == "--temp") {
      o.sampling.temperature = ToDouble(a, v, 0.0, 100.0);
    } else if (a == "--top-k") {
      o.sampling.top_k = ToInt(a, v, 0, INT32_MAX);
    } else if (a == "--top-p") {
      o.sampling.top_p = ToDouble(a, v, 0.0, 1.0);
    } else if (a == "--min-p") {
      o.sampling.min_p = ToDouble(a, v, 0.0, 1.0);
    } else if (a == "--repetition-penalty") {
      o.sampling.repetition_penalty = ToDouble(a, v, 0.01, 100.0);
    } else if (a == "--seed") {
      o.sampling.seed = static_cast<uint64_t>(ToInt(a, v, 0, INT64_MAX));
    } else if (a == "--device") {
      if (v != "cpu" && v != "cuda")
        throw UsageError{"--device wants cpu or cuda, got '" + v + "'"};
      o.device = v;
    } else if (a == "--threads" || a == "-t") {
      o.threads = static_cast<int>(ToInt(a, v, 1, 1024));
    } else if (a == "--activations") {
      if (v != "q8" && v != "f32")
        throw UsageError{"--activations wants q8 or f32, got '" + v + "'"};
      o.q8_decode_activations = v == "q8";
    } else if (a == "--kv-type") {
      if (v != "f16" && v != "f32" && v != "q8_0")
        throw UsageError{"--kv-type wants f16, f32 or q8_0, got '" + v + "'"};
      o.kv_type = v;
    } else if (a == "--ctx" || a == "-c") {
      o.context = ToInt(a, v, 1, 1 << 24);
    } else if (a == "--dump-logits") {
      o.dump_logits = v;
    } else if (a == "--plugin-dir") {
      o.plugin_dirs.emplace_back(v);
    } else {
      throw UsageError{"unknown flag: " + a};
    }
  }
  if (!have_model) throw UsageError{"--model is required"};
  if (o.prompt.has_value() == o.tokens.has_value()) {
    throw UsageError{"give exactly one of --prompt and --tokens"};
  }
  return o;
}

}  // namespace orcd::run
