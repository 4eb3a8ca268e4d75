// orcd-synth: writes a random-weight GGUF of a real model's shape, loadable
// by the llama plugin, for demos and benchmarks (never for quality).
//   orcd-synth --shape demo --out build/demo/demo-qwen2.gguf
//   orcd-synth --shape qwen2-0.5b --out /tmp/qwen2-0.5b.gguf --seed 7
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "host/common/status.h"
#include "host/gguf/ggml_type_traits.h"
#include "host/gguf/gguf_file.h"
#include "host/gguf/gguf_writer.h"
#include "orcd/plugin.h"
#include "tools/synth/synth_shapes.h"
#include "tools/synth/tensor_fill.h"

#ifndef ORCD_SYNTH_VOCAB_DIR
#define ORCD_SYNTH_VOCAB_DIR ""
#endif

namespace orcd::synth {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

struct Options {
  std::string shape;
  std::filesystem::path out;
  uint64_t seed = 1;
  uint32_t demo_type = ORCD_TYPE_Q8_0;
  std::optional<std::filesystem::path> vocab;
};

void Usage(std::FILE* f) {
  std::fprintf(f,
               "usage: orcd-synth --shape SHAPE --out FILE.gguf [--seed N] [--type f16|q8_0]\n"
               "                  [--vocab VOCAB.gguf]\n"
               "  --shape    %s\n"
               "             demo: qwen2, 2 layers, d 64, the real Qwen2 vocabulary (~16 MB)\n"
               "             smollm3-tiny: smollm3 (NoPE every 4th layer), 4 layers, d 64, the\n"
               "             Qwen2 vocabulary; served by the SDK's example plugin only\n"
               "             qwen2-0.5b, phi3-mini, qwen3-8b, qwen3-30b-a3b, gemma-3-4b,\n"
               "             llama-3.1-8b: the published Q4_K_M files' shapes and type mix\n"
               "             gpt-oss-20b: the published MXFP4 MoE file's shapes and types\n"
               "             (files are held in memory while written: qwen3-30b-a3b ~17 GB)\n"
               "  --type     demo and smollm3-tiny weights (default q8_0)\n"
               "  --vocab    GGUF whose tokenizer.* keys are copied (default: the fixture\n"
               "             vocabulary for the shape's family under\n"
               "             %s; required for demo and smollm3-tiny, optional otherwise)\n"
               "weights are random (N(0, 0.02)): the text they produce is noise.\n"
               "exit status: 0 ok, 1 error, 2 usage\n",
               ShapeNames(), ORCD_SYNTH_VOCAB_DIR);
}

std::optional<Options> Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return std::nullopt;
    const std::string v = argv[++i];
    if (a == "--shape") {
      o.shape = v;
    } else if (a == "--out") {
      o.out = v;
    } else if (a == "--seed") {
      char* end = nullptr;
      o.seed = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0') return std::nullopt;
    } else if (a == "--type") {
      if (v != "f16" && v != "q8_0") return std::nullopt;
      o.demo_type = v == "f16" ? ORCD_TYPE_F16 : ORCD_TYPE_Q8_0;
    } else if (a == "--vocab") {
      o.vocab = v;
    } else {
      return std::nullopt;
    }
  }
  if (o.shape.empty() || o.out.empty()) return std::nullopt;
  return o;
}

std::filesystem::path DefaultVocab(const ModelShape& s) {
  if (s.vocab_file.empty()) return {};  // the fixtures have none for this family
  return std::filesystem::path(ORCD_SYNTH_VOCAB_DIR) / s.vocab_file;
}

void SetHyperParameters(const ModelShape& s, GgufWriter& w) {
  const std::string a = s.architecture + ".";
  w.SetString("general.architecture", s.architecture);
  w.SetString("general.name", s.name);
  w.SetU32("general.file_type", s.file_type);
  w.SetU32("general.quantization_version", 2);
  w.SetU32(a + "context_length", s.context_length);
  w.SetU32(a + "embedding_length", s.n_embd);
  w.SetU32(a + "block_count", s.n_layer);
  w.SetU32(a + "feed_forward_length", s.n_ff);
  w.SetU32(a + "attention.head_count", s.n_head);
  w.SetU32(a + "attention.head_count_kv", s.n_head_kv);
  w.SetF32(a + "rope.freq_base", s.rope_freq_base);
  w.SetF32(a + "attention.layer_norm_rms_epsilon", s.norm_eps);
  if (s.architecture == "phi3") {
    w.SetU32(a + "rope.dimension_count", s.n_embd / s.n_head);
    w.SetU32(a + "rope.scaling.original_context_length", s.context_length);
  }
  if (s.sliding_window > 0) w.SetU32(a + "attention.sliding_window", s.sliding_window);
  if (s.head_dim > 0) {
    w.SetU32(a + "attention.key_length", s.head_dim);
    w.SetU32(a + "attention.value_length", s.head_dim);
  }
  if (s.n_expert > 0) {
    w.SetU32(a + "expert_count", s.n_expert);
    w.SetU32(a + "expert_used_count", s.n_expert_used);
    w.SetU32(a + "expert_feed_forward_length", s.n_ff_exp > 0 ? s.n_ff_exp : s.n_ff);
  }
  for (const auto& [key, value] : s.extra_f32) w.SetF32(a + key, value);
  for (const auto& [key, value] : s.extra_u32) w.SetU32(a + key, value);
  for (const auto& [key, value] : s.extra_strings) w.SetString(a + key, value);
  if (s.yarn_factor > 0.0f) {
    w.SetString(a + "rope.scaling.type", "yarn");
    w.SetF32(a + "rope.scaling.factor", s.yarn_factor);
    w.SetU32(a + "rope.scaling.original_context_length", s.yarn_original_context);
  }
}

// Copies every tokenizer.* key; the vocabulary must match the shape's.
void CopyVocabulary(const std::filesystem::path& path, const ModelShape& s, GgufWriter& w) {
  const std::unique_ptr<GgufFile> vocab = GgufFile::Open(path);
  const auto tokens = vocab->GetStringArray("tokenizer.ggml.tokens");
  if (!tokens || tokens->size() != s.n_vocab) {
    throw Error(ErrorCode::kModelInvalid, path.string() + ": tokenizer.ggml.tokens has " +
                                              std::to_string(tokens ? tokens->size() : 0) +
                                              " entries, the " + s.shape + " shape needs " +
                                              std::to_string(s.n_vocab));
  }
  for (const auto& [key, value] : vocab->metadata()) {
    if (key.rfind("tokenizer.", 0) == 0) w.Set(key, value);
  }
}

int Run(const Options& o) {
  const std::optional<ModelShape> shape = MakeShape(o.shape, o.demo_type);
  if (!shape) {
    std::fprintf(stderr, "orcd-synth: unknown shape '%s' (%s)\n", o.shape.c_str(), ShapeNames());
    return kExitUsage;
  }
  const auto start = std::chrono::steady_clock::now();
  GgufWriter writer;
  SetHyperParameters(*shape, writer);
  const std::filesystem::path vocab = o.vocab.value_or(DefaultVocab(*shape));
  if (o.vocab || shape->needs_vocab_file || std::filesystem::exists(vocab)) {
    if (!std::filesystem::exists(vocab)) {
      throw Error(ErrorCode::kNotFound,
                  "vocabulary " + vocab.string() + " not found (pass --vocab FILE.gguf)");
    }
    CopyVocabulary(vocab, *shape, writer);
  } else {
    // llama.cpp's "no vocabulary" (llama-bench draws random ids below
    // vocab_size); orcd's engine and orcd-bench need none either.
    writer.SetString("tokenizer.ggml.model", "none");
    writer.SetU32(shape->architecture + ".vocab_size", shape->n_vocab);
    std::fprintf(stderr, "orcd-synth: no vocabulary at %s: tokenizer.ggml.model \"none\"\n",
                 vocab.string().c_str());
  }
  TensorFiller filler(o.seed);
  uint64_t bytes = 0;
  for (const TensorSpec& t : shape->tensors) {
    std::vector<uint8_t> data = filler.Generate(t);
    bytes += data.size();
    writer.AddTensor(t.name, t.type, t.ne, std::move(data));
  }
  if (o.out.has_parent_path()) std::filesystem::create_directories(o.out.parent_path());
  writer.WriteFile(o.out);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("wrote %s: shape %s (%s), %zu tensors, %.1f MiB of weights, %.1f s\n",
              o.out.string().c_str(), shape->shape.c_str(), shape->architecture.c_str(),
              shape->tensors.size(), static_cast<double>(bytes) / (1 << 20), seconds);
  return kExitOk;
}

}  // namespace
}  // namespace orcd::synth

int main(int argc, char** argv) {
  using namespace orcd::synth;
  const std::optional<Options> options = Parse(argc, argv);
  if (!options) {
    Usage(stderr);
    return kExitUsage;
  }
  try {
    return Run(*options);
  } catch (const orcd::Error& e) {
    std::fprintf(stderr, "orcd-synth: %s: %s\n", std::string(orcd::ErrorCodeName(e.code())).c_str(),
                 e.what());
    return kExitError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "orcd-synth: %s\n", e.what());
    return kExitError;
  }
}
