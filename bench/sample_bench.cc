// orcd-bench sample: milliseconds per token of the CPU sampler
// (host/sampling/sampler.h) on a vocabulary of synthetic logits, for the
// API's defaults and a few other configurations. One thread; each
// configuration draws --tokens tokens from 32 logit rows in turn (the
// repetition penalty's history grows as in a job), --repeat times.
//
// Logit shapes: "llm" (default) is a Gaussian bulk, std 2.5, with 24
// plausible tokens 8 + 6|N(0,1)| above it, as an instruction model's rows
// look; "flat" is std 0.3 and nothing above, as random-weight models give
// (the draw lands deep in the tail, found in a band of ranks past the top).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "bench_flags.h"
#include "bench_util.h"
#include "host/sampling/sampler.h"
#include "host/sampling/sampler_kernels.h"
#include "subcommands.h"

namespace orcd::bench {
namespace {

struct Options {
  bool json = false;
  int64_t vocab = 151936;  // Qwen2.5's
  int tokens = 2000;
  int repeat = 5;
  std::string logits = "llm";
  int64_t seed = 1;
};

struct Config {
  const char* name;
  SamplerConfig sampler;
  bool exact_only = false;
};

struct Result {
  const Config* config;
  double wall_best = 0, wall_median = 0;  // ms per token
  double cpu_best = 0, cpu_median = 0;
  double exact_share = 0;  // of the sampled tokens
  double deep_share = 0;   // drawn in a band past the sorted head
};

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: orcd-bench sample [--json] [--vocab N] [--tokens N] [--repeat R]\n"
               "                         [--logits llm|flat] [--seed S]\n"
               "  ms per token of the CPU sampler for the API's defaults and other settings.\n");
}

std::vector<std::vector<float>> MakeRows(const Options& o) {
  std::mt19937_64 rng(static_cast<uint64_t>(o.seed));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int64_t> any(0, o.vocab - 1);
  std::vector<std::vector<float>> rows(32, std::vector<float>(static_cast<size_t>(o.vocab)));
  for (std::vector<float>& row : rows) {
    const bool flat = o.logits == "flat";
    for (float& x : row) x = normal(rng) * (flat ? 0.3f : 2.5f);
    if (!flat) {
      for (int k = 0; k < 24; ++k)
        row[static_cast<size_t>(any(rng))] = 8.0f + 6.0f * std::abs(normal(rng));
    }
  }
  return rows;
}

double Seconds(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Result Measure(const Config& config, const std::vector<std::vector<float>>& rows,
               const Options& o) {
  std::vector<double> wall, cpu;
  int64_t exact = 0, deep = 0, sampled = 0;
  for (int r = 0; r < o.repeat; ++r) {
    Sampler sampler(config.sampler);
    sampler.set_exact_only(config.exact_only);
    sampler.Sample(rows[0]);  // buffers grown, the exp check run: not timed
    const double w0 = Seconds(CLOCK_MONOTONIC), c0 = Seconds(CLOCK_THREAD_CPUTIME_ID);
    for (int t = 0; t < o.tokens; ++t) sampler.Sample(rows[static_cast<size_t>(t) % rows.size()]);
    wall.push_back((Seconds(CLOCK_MONOTONIC) - w0) * 1e3 / o.tokens);
    cpu.push_back((Seconds(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e3 / o.tokens);
    exact += sampler.stats().exact;
    deep += sampler.stats().deep;
    sampled += sampler.stats().fast + sampler.stats().exact;
  }
  Result r{&config};
  r.wall_best = *std::min_element(wall.begin(), wall.end());
  r.wall_median = Median(wall);
  r.cpu_best = *std::min_element(cpu.begin(), cpu.end());
  r.cpu_median = Median(cpu);
  if (sampled > 0) {
    r.exact_share = static_cast<double>(exact) / static_cast<double>(sampled);
    r.deep_share = static_cast<double>(deep) / static_cast<double>(sampled);
  }
  return r;
}

void PrintJson(const Options& o, const std::vector<Result>& results) {
  std::printf(
      "{\n  \"benchmark\": \"sample\",\n  \"cpu\": %s,\n  \"threads\": 1,\n  \"kernels\": "
      "%s,\n  \"vocab\": %lld,\n  \"logits\": %s,\n  \"tokens\": %d,\n  \"repeat\": %d,\n"
      "  \"results\": [\n",
      json_string(cpu_model_name()).c_str(), json_string(sampling::KernelSetName()).c_str(),
      static_cast<long long>(o.vocab), json_string(o.logits).c_str(), o.tokens, o.repeat);
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    const SamplerConfig& c = r.config->sampler;
    std::printf(
        "    {\"config\": %s, \"temperature\": %s, \"top_k\": %lld, \"top_p\": %s, \"min_p\": %s, "
        "\"repetition_penalty\": %s, \"exact_path_only\": %s, \"ms_per_token_best\": %s, "
        "\"ms_per_token_median\": %s, \"cpu_ms_per_token_best\": %s, "
        "\"cpu_ms_per_token_median\": %s, \"exact_path_share\": %s, \"deep_draw_share\": %s}%s\n",
        json_string(r.config->name).c_str(), json_number(c.temperature).c_str(),
        static_cast<long long>(c.top_k), json_number(c.top_p).c_str(), json_number(c.min_p).c_str(),
        json_number(c.repetition_penalty).c_str(), r.config->exact_only ? "true" : "false",
        json_number(r.wall_best).c_str(), json_number(r.wall_median).c_str(),
        json_number(r.cpu_best).c_str(), json_number(r.cpu_median).c_str(),
        json_number(r.exact_share).c_str(), json_number(r.deep_share).c_str(),
        i + 1 < results.size() ? "," : "");
  }
  std::printf("  ]\n}\n");
}

}  // namespace

int run_sample(const Args& args) {
  Options o;
  const int exit_code = ParseOrExit("sample", args,
                                    {Switch("--json", &o.json), IntFlag("--vocab", &o.vocab),
                                     IntFlag("--tokens", &o.tokens), IntFlag("--repeat", &o.repeat),
                                     StringFlag("--logits", &o.logits), IntFlag("--seed", &o.seed)},
                                    usage);
  if (exit_code >= 0) return exit_code;
  if (o.vocab < 1 || o.tokens < 1 || o.repeat < 1 || (o.logits != "llm" && o.logits != "flat")) {
    std::fprintf(stderr,
                 "orcd-bench sample: --vocab, --tokens, --repeat >= 1; --logits llm|flat\n");
    return 2;
  }
  const auto seed = static_cast<uint64_t>(o.seed);
  const Config configs[] = {
      {"api-defaults", SamplerConfig{.seed = seed}},
      {"t0.7-top_p0.9", SamplerConfig{.temperature = 0.7, .top_p = 0.9, .seed = seed}},
      {"t0.8-top_k40", SamplerConfig{.temperature = 0.8, .top_k = 40, .seed = seed}},
      {"min_p0.05", SamplerConfig{.min_p = 0.05, .seed = seed}},
      {"penalty1.1", SamplerConfig{.repetition_penalty = 1.1, .seed = seed}},
      {"t2", SamplerConfig{.temperature = 2.0, .seed = seed}},
      {"api-defaults-exact-path", SamplerConfig{.seed = seed}, /*exact_only=*/true},
  };
  const std::vector<std::vector<float>> rows = MakeRows(o);
  std::vector<Result> results;
  for (const Config& c : configs) results.push_back(Measure(c, rows, o));
  if (o.json) {
    PrintJson(o, results);
    return 0;
  }
  std::printf("sampler ms/token, 1 thread, vocab %lld, %s logits, %s (kernels: %s)\n",
              static_cast<long long>(o.vocab), o.logits.c_str(), cpu_model_name().c_str(),
              sampling::KernelSetName());
  std::printf("%-24s %10s %10s %10s %10s %8s %8s\n", "config", "best", "median", "cpu best",
              "cpu med", "deep %", "exact %");
  for (const Result& r : results) {
    std::printf("%-24s %10.4f %10.4f %10.4f %10.4f %8.2f %8.2f\n", r.config->name, r.wall_best,
                r.wall_median, r.cpu_best, r.cpu_median, 100.0 * r.deep_share,
                100.0 * r.exact_share);
  }
  return 0;
}

}  // namespace orcd::bench
