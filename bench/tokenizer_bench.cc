// orcd-bench tokenizer: encode and streaming-decode throughput of every
// tokenizer orcd has a fixture vocabulary for, on ~1 MB of multilingual text
// built from the upstream test-vector strings (English, code, CJK, Arabic,
// Hindi, Thai, emoji, whitespace runs, ...) repeated. One thread; the text is
// encoded as one prompt.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "bench_util.h"
#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/tokenizer/hf_json_tokenizer.h"
#include "host/tokenizer/streaming_detokenizer.h"
#include "host/tokenizer/tokenizer_factory.h"
#include "subcommands.h"

#ifndef ORCD_BENCH_FIXTURES_DIR
#define ORCD_BENCH_FIXTURES_DIR "../shared/fixtures"
#endif

namespace orcd::bench {
namespace {

struct Options {
  bool json = false;
  std::filesystem::path fixtures = ORCD_BENCH_FIXTURES_DIR;
  double megabytes = 1.0;
  double min_time = 0.5;  // seconds per measurement
};

struct Result {
  std::string vocab;
  std::string kind;
  double load_ms = 0;
  size_t tokens = 0;
  double encode_mb_s = 0;
  double decode_mb_s = 0;
};

void usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: orcd-bench tokenizer [--json] [--fixtures DIR] [--megabytes N] [--min-time S]\n"
      "  Encode / streaming-decode MB/s of each fixture vocabulary on ~N MB of multilingual "
      "text.\n");
}

// The gpt-oss vectors hold the qwen2 ones plus 26 more scripts and formats.
std::string bench_text(const std::filesystem::path& fixtures, double megabytes) {
  std::ifstream in(fixtures / "vocab" / "ggml-vocab-gpt-oss.gguf.inp", std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, "no test vectors under " + fixtures.string());
  std::ostringstream all;
  all << in.rdbuf();
  std::string strings = all.str();
  const std::string separator = "\n__ggml_vocab_test__\n";
  for (size_t at; (at = strings.find(separator)) != std::string::npos;)
    strings.replace(at, separator.size(), "\n");
  const auto target = static_cast<size_t>(megabytes * 1024 * 1024);
  std::string text;
  while (text.size() < target) text += strings;
  return text;
}

// Seconds per call of `fn`, repeated for at least min_time.
double time_per_call(const std::function<void()>& fn, double min_time) {
  int calls = 0;
  const double t0 = now_seconds();
  do {
    fn();
    ++calls;
  } while (now_seconds() - t0 < min_time);
  return (now_seconds() - t0) / calls;
}

Result measure(const std::string& vocab, const std::function<std::unique_ptr<Tokenizer>()>& load,
               const std::string& text, double min_time) {
  Result r;
  r.vocab = vocab;
  double t0 = now_seconds();
  const std::unique_ptr<Tokenizer> tokenizer = load();
  r.load_ms = (now_seconds() - t0) * 1e3;
  r.kind = tokenizer->kind();
  std::vector<TokenId> ids;
  const double mb = static_cast<double>(text.size()) / (1024 * 1024);
  r.encode_mb_s =
      mb / time_per_call([&] { ids = tokenizer->Encode(text, false, false); }, min_time);
  r.tokens = ids.size();
  size_t decoded = 0;
  r.decode_mb_s = mb / time_per_call(
                           [&] {
                             StreamingDetokenizer detokenizer(*tokenizer);
                             decoded = 0;
                             for (const TokenId id : ids) decoded += detokenizer.Push(id).size();
                             decoded += detokenizer.Flush().size();
                           },
                           min_time);
  return r;
}

void print_json(const std::vector<Result>& results, size_t text_bytes) {
  std::printf(
      "{\n  \"benchmark\": \"tokenizer\",\n  \"cpu\": %s,\n  \"threads\": 1,\n  \"text_bytes\": "
      "%zu,\n"
      "  \"results\": [\n",
      json_string(cpu_model_name()).c_str(), text_bytes);
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    std::printf(
        "    {\"vocab\": %s, \"kind\": %s, \"load_ms\": %s, \"tokens\": %zu, "
        "\"bytes_per_token\": %s, \"encode_mb_s\": %s, \"decode_mb_s\": %s}%s\n",
        json_string(r.vocab).c_str(), json_string(r.kind).c_str(), json_number(r.load_ms).c_str(),
        r.tokens,
        json_number(static_cast<double>(text_bytes) / std::max<size_t>(r.tokens, 1)).c_str(),
        json_number(r.encode_mb_s).c_str(), json_number(r.decode_mb_s).c_str(),
        i + 1 < results.size() ? "," : "");
  }
  std::printf("  ]\n}\n");
}

}  // namespace

int run_tokenizer(const Args& args) {
  Options o;
  std::string fixtures = o.fixtures.string();
  const int exit_code =
      ParseOrExit("tokenizer", args,
                  {Switch("--json", &o.json), StringFlag("--fixtures", &fixtures),
                   DoubleFlag("--megabytes", &o.megabytes), DoubleFlag("--min-time", &o.min_time)},
                  usage);
  if (exit_code >= 0) return exit_code;
  o.fixtures = fixtures;
  try {
    const std::string text = bench_text(o.fixtures, o.megabytes);
    const std::filesystem::path vocab_dir = o.fixtures / "vocab";
    std::vector<Result> results;
    for (const std::string name : {"gpt-2", "qwen2", "gpt-oss", "llama-spm", "phi-3"}) {
      const std::filesystem::path gguf = vocab_dir / ("ggml-vocab-" + name + ".gguf");
      results.push_back(measure(
          name, [&] { return CreateGgufTokenizer(*GgufFile::Open(gguf)); }, text, o.min_time));
      if (!o.json) std::fprintf(stderr, "%s done\n", name.c_str());
    }
    results.push_back(measure(
        "qwen2",
        [&] {
          return LoadHfJsonTokenizer(vocab_dir / "qwen2-tokenizer.json",
                                     GgufFile::Open(vocab_dir / "ggml-vocab-qwen2.gguf").get());
        },
        text, o.min_time));
    if (o.json) {
      print_json(results, text.size());
      return 0;
    }
    std::printf("tokenizer throughput, 1 thread, %.2f MB of multilingual text, %s\n",
                static_cast<double>(text.size()) / (1024 * 1024), cpu_model_name().c_str());
    std::printf("%-10s %-9s %9s %9s %11s %11s\n", "vocab", "kind", "load ms", "tokens",
                "encode MB/s", "decode MB/s");
    for (const Result& r : results) {
      std::printf("%-10s %-9s %9.0f %9zu %11.2f %11.2f\n", r.vocab.c_str(), r.kind.c_str(),
                  r.load_ms, r.tokens, r.encode_mb_s, r.decode_mb_s);
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "orcd-bench tokenizer: %s\n", e.what());
    return 1;
  }
}

}  // namespace orcd::bench
