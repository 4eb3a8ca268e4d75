// orcd-run: loads one model on the engine, evaluates a prompt and generates,
// printing the text as it comes and the prefill/decode speeds at the end.
//   orcd-run --model M.gguf --prompt "Hello" -n 32 --temperature 0.7 --seed 1
//   orcd-run --model M.gguf --tokens 1,2,3 -n 0 --dump-logits rows.f32
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "host/common/logger.h"
#include "host/common/status.h"
#include "host/engine/engine.h"
#include "host/gguf/gguf_file.h"
#include "host/plugins/host_services.h"
#include "host/plugins/model_router.h"
#include "host/plugins/plugin_registry.h"
#include "host/plugins/plugin_search_path.h"
#include "host/sampling/sampler.h"
#include "host/tokenizer/streaming_detokenizer.h"
#include "host/tokenizer/tokenizer_factory.h"
#include "tools/run/run_options.h"

namespace orcd::run {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Writes logits rows as raw little-endian float32 (the goldens' layout).
class LogitsDump {
 public:
  explicit LogitsDump(const std::optional<std::filesystem::path>& path) {
    if (!path) return;
    out_.open(*path, std::ios::binary | std::ios::trunc);
    if (!out_) throw Error(ErrorCode::kIo, "cannot write " + path->string());
    path_ = path->string();
  }
  bool enabled() const { return out_.is_open(); }
  void Write(std::span<const float> rows) {
    if (!enabled()) return;
    out_.write(reinterpret_cast<const char*>(rows.data()),
               static_cast<std::streamsize>(rows.size_bytes()));
    if (!out_) throw Error(ErrorCode::kIo, "cannot write " + path_);
  }

 private:
  std::ofstream out_;
  std::string path_;
};

void PrintText(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

int Run(const RunOptions& o) {
  PluginRegistry registry(HostServices());
  registry.LoadDirectories(o.plugin_dirs.empty() ? DefaultPluginDirs() : o.plugin_dirs);

  const Clock::time_point load_start = Clock::now();
  std::unique_ptr<GgufFile> file = GgufFile::Open(o.model);
  const ModelRoute route = RouteModel(registry, *file);
  // The tokenizer is optional with --tokens: ids are printed when the model
  // has no usable vocabulary.
  std::unique_ptr<Tokenizer> tokenizer;
  try {
    TokenizerSelection selection;
    selection.family = FindFamilyTraits(registry, file->architecture());
    tokenizer = CreateTokenizer(*file, o.model, selection);
  } catch (const Error& e) {
    if (o.prompt) throw;
    std::fprintf(stderr, "orcd-run: no tokenizer (%s); printing token ids\n", e.what());
  }
  engine::EngineOptions eo;
  eo.device = o.device;
  eo.threads = o.threads;
  eo.q8_decode_activations = o.q8_decode_activations;
  eo.context_length = o.context;
  eo.kv_type = *engine::ParseKvType(o.kv_type);  // checked by the option parser
  std::unique_ptr<engine::Engine> engine = engine::Engine::Load(std::move(file), route, eo);
  const double load_s = Seconds(load_start);
  const engine::ModelInfo& info = engine->info();

  std::vector<int32_t> prompt = o.tokens ? *o.tokens
                                         : tokenizer->Encode(*o.prompt, /*add_special=*/true,
                                                             /*parse_special=*/true);
  if (prompt.empty()) throw Error(ErrorCode::kInvalidArgument, "the prompt has no tokens");
  if (static_cast<int64_t>(prompt.size()) > info.context_length) {
    throw Error(ErrorCode::kInvalidArgument, "prompt of " + std::to_string(prompt.size()) +
                                                 " tokens exceeds the context of " +
                                                 std::to_string(info.context_length));
  }

  for (const int32_t id : prompt) {
    if (id >= info.vocab) {
      throw Error(ErrorCode::kInvalidArgument, "token id " + std::to_string(id) +
                                                   " is outside the vocabulary (0.." +
                                                   std::to_string(info.vocab - 1) + ")");
    }
  }
  LogitsDump dump(o.dump_logits);
  const Clock::time_point prefill_start = Clock::now();
  std::span<const float> rows =
      engine->Prefill(prompt, dump.enabled() ? engine::LogitRows::kAll : engine::LogitRows::kLast);
  const double prefill_s = Seconds(prefill_start);
  dump.Write(rows);
  const auto vocab = static_cast<size_t>(info.vocab);
  std::vector<float> logits(rows.end() - static_cast<std::ptrdiff_t>(vocab), rows.end());

  Sampler sampler(o.sampling);
  std::unique_ptr<StreamingDetokenizer> detok =
      tokenizer ? std::make_unique<StreamingDetokenizer>(*tokenizer) : nullptr;
  int64_t generated = 0;
  int64_t decode_steps = 0;
  const Clock::time_point decode_start = Clock::now();
  while (generated < o.n_predict) {
    const int32_t token = sampler.Sample(logits);
    if (!o.ignore_eos && tokenizer && tokenizer->IsEndOfGeneration(token)) break;
    ++generated;
    PrintText(detok ? detok->Push(token) : std::to_string(token) + " ");
    // The last token is evaluated only when its logits row is wanted.
    const bool more = generated < o.n_predict && engine->position() < info.context_length;
    if (!more && !(dump.enabled() && engine->position() < info.context_length)) break;
    std::span<const float> row = engine->Decode(token);
    ++decode_steps;
    dump.Write(row);
    if (!more) break;
    logits.assign(row.begin(), row.end());
  }
  const double decode_s = Seconds(decode_start);
  if (detok) PrintText(detok->Flush());
  if (generated > 0) PrintText("\n");

  if (!o.quiet) {
    std::fprintf(stderr,
                 "\nmodel: %s (%s), %s, ctx %lld, load %.2f s\n"
                 "prefill: %zu tokens in %.3f s (%.2f tok/s)\n"
                 "decode: %lld tokens in %.3f s (%.2f tok/s)\n",
                 info.name.c_str(), info.architecture.c_str(), info.device.c_str(),
                 static_cast<long long>(info.context_length), load_s, prompt.size(), prefill_s,
                 static_cast<double>(prompt.size()) / prefill_s, static_cast<long long>(generated),
                 decode_s, decode_steps > 0 ? static_cast<double>(decode_steps) / decode_s : 0.0);
  }
  return kExitOk;
}

}  // namespace
}  // namespace orcd::run

int main(int argc, char** argv) {
  using namespace orcd::run;
  std::optional<RunOptions> options;
  try {
    options = ParseRunOptions(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "orcd-run: %s\n%s", e.message.c_str(), RunUsage().c_str());
    return kExitUsage;
  }
  if (!options) {
    std::fputs(RunUsage().c_str(), stdout);
    return kExitOk;
  }
  // Plugin and engine chatter only when something is wrong.
  orcd::Logger::Global().SetLevel(orcd::LogLevel::kWarn);
  try {
    return Run(*options);
  } catch (const orcd::Error& e) {
    std::fprintf(stderr, "orcd-run: %s: %s\n", std::string(orcd::ErrorCodeName(e.code())).c_str(),
                 e.what());
    return kExitError;
  }
}
