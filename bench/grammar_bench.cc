// orcd-bench grammar: the cost of structured output (host/structured) at a
// real vocabulary (Qwen2's 151,936 tokens by default): the trie's build,
// each schema's compile, and per generated token the check of a pick (what
// a job pays when the pick is allowed) and the mask (what it pays when the
// pick is refused: the allowed set of that grammar state, kept for the job).
// Schemas: every JSON Schema Test Suite (draft 4) group within the supported
// keywords, with each valid instance written compactly in the instance's own
// key order (instances the schema's order would write otherwise are
// skipped), and a 30-field nested schema with one instance.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>

#include "bench_flags.h"
#include "bench_util.h"
#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/engine/engine.h"
#include "host/gguf/gguf_file.h"
#include "host/plugins/host_services.h"
#include "host/plugins/plugin_registry.h"
#include "host/plugins/plugin_search_path.h"
#include "host/sampling/sampler.h"
#include "host/structured/compact_json.h"
#include "host/structured/grammar_matcher.h"
#include "host/structured/json_schema_grammar.h"
#include "host/structured/mask_cache.h"
#include "host/structured/token_constraint.h"
#include "host/structured/token_trie.h"
#include "host/tokenizer/tokenizer_factory.h"
#include "subcommands.h"

namespace orcd::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Poco::Dynamic::Var;

struct Options {
  bool json = false;
  std::string vocab = std::string(ORCD_BENCH_FIXTURES_DIR) + "/vocab/ggml-vocab-qwen2.gguf";
  std::string suite = "/usr/share/json-schema-test-suite/tests/draft4";
  bool show_slow = false;  // masks over 0.5 ms (the p99 target), on stderr
  std::string model;       // with it: decode tok/s with and without the 30-field schema
  int gen = 128;
};

void usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: orcd-bench grammar [--json] [--vocab VOCAB.gguf] [--suite DIR] [--show-slow]\n"
      "                          [--model M.gguf [--gen N]]\n"
      "  trie build, schema compile, per-token check and mask of structured output;\n"
      "  with --model, CPU decode tok/s at temperature 1 with and without the 30-field\n"
      "  schema (the model's own vocabulary).\n");
}

double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

Var ParseOrdered(const std::string& text) {
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));
  return parser.parse(text);
}

// 30 fields: strings, bounded integers, booleans, enums, number arrays and
// two nested objects; and one instance of it.
std::pair<std::string, std::string> WideSchema() {
  std::string schema = R"({"type":"object","properties":{)";
  std::string instance = "{";
  std::string required;
  for (int i = 0; i < 30; ++i) {
    const std::string name = "field_" + std::to_string(i);
    std::string type, value;
    switch (i % 6) {
      case 0:
        type = R"({"type":"string"})";
        value = R"("a value of field )" + std::to_string(i) + R"( with some words")";
        break;
      case 1:
        type = R"({"type":"integer","minimum":0,"maximum":100000})";
        value = std::to_string(1234 * i % 100000);
        break;
      case 2:
        type = R"({"type":"boolean"})";
        value = i % 4 == 2 ? "true" : "false";
        break;
      case 3:
        type = R"({"enum":["alpha","beta","gamma","delta"]})";
        value = R"("gamma")";
        break;
      case 4:
        type = R"({"type":"array","items":{"type":"number"},"maxItems":8})";
        value = "[1.5,2,-3.25e2]";
        break;
      default:
        type =
            R"({"type":"object","properties":{"id":{"type":"integer"},"tag":{"type":"string"},)"
            R"("ok":{"type":"boolean"}},"required":["id","tag","ok"],"additionalProperties":false})";
        value = R"({"id":42,"tag":"nested text","ok":true})";
    }
    schema += (i ? "," : "") + ("\"" + name + "\":") + type;
    instance += (i ? "," : "") + ("\"" + name + "\":") + value;
    required += (i ? "," : "") + ("\"" + name + "\"");
  }
  schema += "},\"required\":[" + required + "],\"additionalProperties\":false}";
  return {schema, instance + "}"};
}

struct Case {
  std::string schema;
  std::vector<std::string> instances;
};

std::vector<Case> SuiteCases(const std::filesystem::path& dir) {
  std::vector<Case> out;
  if (!std::filesystem::is_directory(dir)) return out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const Var groups = ParseOrdered(text.str());
    for (const Var& g : *groups.extract<Poco::JSON::Array::Ptr>()) {
      const auto group = g.extract<Poco::JSON::Object::Ptr>();
      Case c;
      c.schema = structured::CompactJson(group->get("schema"));
      const Var tests = group->get("tests");
      for (const Var& t : *tests.extract<Poco::JSON::Array::Ptr>()) {
        const auto test = t.extract<Poco::JSON::Object::Ptr>();
        if (test->getValue<bool>("valid"))
          c.instances.push_back(structured::CompactJson(test->get("data")));
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

struct DecodeFigures {
  double free_tok_s = 0, schema_tok_s = 0;
  int64_t refused = 0;    // picks the grammar refused (a mask computed, a second pick)
  int64_t instances = 0;  // schema instances completed in the run
};

// One stream on the CPU engine: a 16-token prompt, then `gen` tokens sampled
// at temperature 1, free or held to `grammar` (a new instance begun each time
// one is whole), as the generation loop does it.
DecodeFigures MeasureDecode(const Options& o,
                            const std::shared_ptr<const structured::Grammar>& grammar) {
  PluginRegistry registry(HostServices());
  registry.LoadDirectories(DefaultPluginDirs());
  engine::EngineOptions eo;
  eo.context_length = 16 + o.gen + 16;
  const std::unique_ptr<engine::Engine> e = engine::Engine::Load(o.model, registry, eo);
  const std::unique_ptr<Tokenizer> tokenizer = CreateGgufTokenizer(*GgufFile::Open(o.model));
  const structured::TokenTrie trie(*tokenizer);
  std::vector<int32_t> prompt(16);
  for (size_t i = 0; i < prompt.size(); ++i)
    prompt[i] = static_cast<int32_t>((i * 7919 + 13) % static_cast<size_t>(e->info().vocab));
  DecodeFigures f;
  for (const bool constrained : {false, true, false, true}) {  // warm, then measured
    e->Reset();
    std::span<const float> logits = e->Prefill(prompt);
    SamplerConfig config;
    config.seed = 1;
    Sampler sampler(config);
    std::optional<structured::TokenConstraint> constraint;
    if (constrained) constraint.emplace(grammar, trie);
    std::vector<float> masked;
    int64_t refused = 0, instances = 0;
    const auto t0 = Clock::now();
    for (int i = 0; i < o.gen; ++i) {
      int32_t token;
      if (constraint) {
        token = sampler.SampleAllowed(
            logits, [&](int32_t t) { return constraint->Allows(t); },
            [&] {
              ++refused;
              masked.assign(logits.begin(), logits.end());
              constraint->Mask(masked);
              return std::span<const float>(masked);
            });
        constraint->Accept(token);
        if (tokenizer->IsEndOfGeneration(token) || constraint->Finished()) {
          ++instances;
          constraint.emplace(grammar, trie);
        }
      } else {
        token = sampler.Sample(logits);
      }
      logits = e->Decode(token);
    }
    const double tok_s = o.gen / (MsSince(t0) / 1e3);
    (constrained ? f.schema_tok_s : f.free_tok_s) = tok_s;
    if (constrained) {
      f.refused = refused;
      f.instances = instances;
    }
  }
  return f;
}

}  // namespace

int run_grammar(const Args& args) {
  Options o;
  const int exit_code =
      ParseOrExit("grammar", args,
                  {Switch("--json", &o.json), StringFlag("--vocab", &o.vocab),
                   StringFlag("--suite", &o.suite), Switch("--show-slow", &o.show_slow),
                   StringFlag("--model", &o.model), IntFlag("--gen", &o.gen)},
                  usage);
  if (exit_code >= 0) return exit_code;
  try {
    const std::unique_ptr<Tokenizer> tokenizer = CreateGgufTokenizer(*GgufFile::Open(o.vocab));
    auto t0 = Clock::now();
    const structured::TokenTrie trie(*tokenizer);
    const double trie_ms = MsSince(t0);

    std::vector<Case> cases = SuiteCases(o.suite);
    const auto [wide_schema, wide_instance] = WideSchema();
    cases.push_back({wide_schema, {wide_instance}});
    // mask_us: cold states (each instance a new job); warm_mask_us: the same
    // masks in a job after another job of the schema (mask_cache.h).
    std::vector<double> compile_ms, check_us, mask_us, warm_mask_us;
    double wide_compile_ms = 0;
    int schemas = 0, instances = 0;
    for (const Case& c : cases) {
      std::shared_ptr<const structured::Grammar> grammar;
      t0 = Clock::now();
      try {
        grammar = structured::JsonSchemaGrammar(
            ParseOrdered("{\"s\":" + c.schema + "}").extract<Poco::JSON::Object::Ptr>()->get("s"));
      } catch (const Error&) {
        continue;  // a keyword outside the supported ones
      }
      compile_ms.push_back(MsSince(t0));
      if (&c == &cases.back()) wide_compile_ms = compile_ms.back();
      ++schemas;
      std::vector<std::vector<TokenId>> usable;  // the instances' tokens, for the warm passes
      for (const std::string& text : c.instances) {
        structured::GrammarMatcher m(grammar);
        if (!m.AcceptBytes(text) || !m.CanEnd()) continue;  // written in another key order
        const std::vector<TokenId> ids = trie.LongestFirst(text);
        if (ids.empty()) continue;
        ++instances;
        usable.push_back(ids);
        structured::TokenConstraint constraint(grammar, trie);
        std::vector<float> logits(trie.vocab_size());
        for (const TokenId id : ids) {
          t0 = Clock::now();
          const bool ok = constraint.Allows(id);
          check_us.push_back(MsSince(t0) * 1e3);
          t0 = Clock::now();
          constraint.Mask(logits);
          mask_us.push_back(MsSince(t0) * 1e3);
          if (o.show_slow && mask_us.back() > 500) {  // over the p99 target
            std::fprintf(stderr, "mask %.0f us: schema %s, instance %s, before '%s'\n",
                         mask_us.back(), c.schema.c_str(), text.c_str(), trie.piece(id).c_str());
          }
          if (!ok) throw Error(ErrorCode::kInternal, "a valid instance's token was refused");
          constraint.Accept(id);
        }
      }
      // Warm: every instance once to fill the schema's shared masks, then
      // again, measured.
      auto shared = std::make_shared<structured::MaskCache>(size_t{64} << 20);
      for (int pass = 0; pass < 2; ++pass) {
        for (const std::vector<TokenId>& ids : usable) {
          structured::TokenConstraint constraint(grammar, trie, shared);
          std::vector<float> logits(trie.vocab_size());
          for (const TokenId id : ids) {
            t0 = Clock::now();
            constraint.Mask(logits);
            if (pass == 1) warm_mask_us.push_back(MsSince(t0) * 1e3);
            constraint.Accept(id);
          }
        }
      }
    }
    DecodeFigures decode;
    if (!o.model.empty()) {
      Logger::Global().SetLevel(LogLevel::kWarn);
      decode =
          MeasureDecode(o, structured::JsonSchemaGrammar(ParseOrdered("{\"s\":" + wide_schema + "}")
                                                             .extract<Poco::JSON::Object::Ptr>()
                                                             ->get("s")));
    }
    const auto stats = [](const std::vector<double>& v) {
      return "{\"p50\": " + json_number(Percentile(v, 0.5)) +
             ", \"p99\": " + json_number(Percentile(v, 0.99)) +
             ", \"max\": " + json_number(Percentile(v, 1.0)) + "}";
    };
    if (o.json) {
      std::printf(
          "{\n  \"benchmark\": \"grammar\",\n  \"cpu\": %s,\n  \"vocab\": %s,\n  \"vocab_size\": "
          "%zu,\n  \"trie_nodes\": %zu,\n  \"trie_ms\": %s,\n  \"schemas\": %d,\n  "
          "\"instances\": %d,\n  \"tokens\": %zu,\n  \"compile_ms\": %s,\n  "
          "\"wide_schema_compile_ms\": %s,\n  \"check_us\": %s,\n  \"mask_us\": %s,\n  "
          "\"warm_mask_us\": %s,\n  "
          "\"model\": %s,\n  \"gen\": %d,\n  \"free_decode_tok_s\": %s,\n  "
          "\"schema_decode_tok_s\": %s,\n  \"schema_refused_picks\": %lld,\n  "
          "\"schema_instances\": %lld\n}\n",
          json_string(cpu_model_name()).c_str(), json_string(o.vocab).c_str(), trie.vocab_size(),
          trie.nodes(), json_number(trie_ms).c_str(), schemas, instances, check_us.size(),
          stats(compile_ms).c_str(), json_number(wide_compile_ms).c_str(), stats(check_us).c_str(),
          stats(mask_us).c_str(), stats(warm_mask_us).c_str(), json_string(o.model).c_str(), o.gen,
          json_number(decode.free_tok_s).c_str(), json_number(decode.schema_tok_s).c_str(),
          static_cast<long long>(decode.refused), static_cast<long long>(decode.instances));
    } else {
      std::printf("vocab %zu tokens, trie %zu nodes in %.1f ms\n", trie.vocab_size(), trie.nodes(),
                  trie_ms);
      std::printf("%d schemas, %d instances, %zu tokens\n", schemas, instances, check_us.size());
      std::printf("compile ms   p50 %.3f  p99 %.3f  max %.3f  (30-field schema %.3f)\n",
                  Percentile(compile_ms, 0.5), Percentile(compile_ms, 0.99),
                  Percentile(compile_ms, 1.0), wide_compile_ms);
      std::printf("check us     p50 %.2f  p99 %.2f  max %.2f\n", Percentile(check_us, 0.5),
                  Percentile(check_us, 0.99), Percentile(check_us, 1.0));
      std::printf("mask us      p50 %.1f  p99 %.1f  max %.1f\n", Percentile(mask_us, 0.5),
                  Percentile(mask_us, 0.99), Percentile(mask_us, 1.0));
      std::printf("warm mask us p50 %.1f  p99 %.1f  max %.1f  (a later job of the same schema)\n",
                  Percentile(warm_mask_us, 0.5), Percentile(warm_mask_us, 0.99),
                  Percentile(warm_mask_us, 1.0));
      if (!o.model.empty()) {
        std::printf(
            "decode tok/s free %.2f  under the 30-field schema %.2f (%.1f %%; %lld of %d "
            "picks refused, %lld instances)\n",
            decode.free_tok_s, decode.schema_tok_s, 100.0 * decode.schema_tok_s / decode.free_tok_s,
            static_cast<long long>(decode.refused), o.gen,
            static_cast<long long>(decode.instances));
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "orcd-bench grammar: %s\n", e.what());
    return 1;
  }
}

}  // namespace orcd::bench
