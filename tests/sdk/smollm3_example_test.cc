// The out-of-tree architecture plugin (sdk/examples/smollm3), built against
// the installed SDK, serves a smollm3 model: its logits, prefill and decode,
// equal an independent double-precision forward pass (smollm3_reference.cc)
// on the CPU backend and on the CUDA backend's emulated device, and its
// greedy generation follows that reference token for token. The same
// comparison tells a plugin that rotated the NoPE layers or paired RoPE
// dimensions the NeoX way apart from a correct one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "host/common/status.h"
#include "host/engine/cuda/device_runtime.h"
#include "host/engine/engine.h"
#include "host/gguf/gguf_writer.h"
#include "host/plugins/host_services.h"
#include "host/plugins/plugin_registry.h"
#include "smollm3_reference.h"
#include "tests/unit/test_files.h"

namespace orcd::testing {
namespace {

// F32 weights, an F32 KV cache and f32 activations against double loops:
// rounding alone stays near 1e-5 (measured 6.6e-6 on the CPU); 2e-4 leaves
// room for another summation order, while the departures checked below move
// logits by whole units (measured 1.85 with RoPE in the NoPE layer too, 8.2
// with NeoX's pairing).
constexpr double kTolerance = 2e-4;

SmolLm3Weights RandomSmolLm3() {
  SmolLm3Weights w;
  w.n_vocab = 96;
  w.n_embd = 32;
  w.n_layer = 4;  // layer 3 is a NoPE layer
  w.n_head = 4;
  w.n_head_kv = 2;  // grouped-query: two query heads per KV head
  w.head_dim = 8;   // n_embd / n_head, as SmolLM3's converter implies
  w.n_ff = 48;
  std::mt19937 rng(2024);
  std::normal_distribution<float> matrix(0.0f, 0.3f);
  std::normal_distribution<float> norm(1.0f, 0.2f);
  auto add = [&](const std::string& name, size_t count, auto& dist) {
    std::vector<float>& t = w.tensors[name];
    for (size_t i = 0; i < count; ++i) t.push_back(dist(rng));
  };
  const size_t d = w.n_embd, q = w.n_head * w.head_dim, kv = w.n_head_kv * w.head_dim;
  add("token_embd.weight", w.n_vocab * d, matrix);
  add("output_norm.weight", d, norm);
  for (int l = 0; l < w.n_layer; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    add(b + "attn_norm.weight", d, norm);
    add(b + "attn_q.weight", q * d, matrix);
    add(b + "attn_k.weight", kv * d, matrix);
    add(b + "attn_v.weight", kv * d, matrix);
    add(b + "attn_output.weight", d * q, matrix);
    add(b + "ffn_norm.weight", d, norm);
    add(b + "ffn_gate.weight", w.n_ff * d, matrix);
    add(b + "ffn_up.weight", w.n_ff * d, matrix);
    add(b + "ffn_down.weight", d * w.n_ff, matrix);
  }
  return w;
}

// Row length of each tensor (ggml ne[0]).
int64_t Columns(const SmolLm3Weights& w, const std::string& name) {
  if (name.find("_norm") != std::string::npos)
    return static_cast<int64_t>(w.tensors.at(name).size());
  if (name.find("attn_output") != std::string::npos) return int64_t{w.n_head} * w.head_dim;
  if (name.find("ffn_down") != std::string::npos) return w.n_ff;
  return w.n_embd;
}

// The weights as llama.cpp's converter writes a smollm3 GGUF (tied LM head),
// minus the tensors named in `skip`.
void WriteSmolLm3Gguf(const SmolLm3Weights& w, const std::filesystem::path& path,
                      const std::string& skip = "") {
  GgufWriter g;
  g.SetString("general.architecture", "smollm3");
  g.SetU32("smollm3.context_length", 64);
  g.SetU32("smollm3.embedding_length", w.n_embd);
  g.SetU32("smollm3.block_count", w.n_layer);
  g.SetU32("smollm3.feed_forward_length", w.n_ff);
  g.SetU32("smollm3.attention.head_count", w.n_head);
  g.SetU32("smollm3.attention.head_count_kv", w.n_head_kv);
  g.SetU32("smollm3.rope.dimension_count", w.head_dim);
  g.SetF32("smollm3.attention.layer_norm_rms_epsilon", w.norm_eps);
  g.SetF32("smollm3.rope.freq_base", w.rope_base);
  for (const auto& [name, values] : w.tensors) {
    if (!skip.empty() && name.find(skip) != std::string::npos) continue;
    const int64_t cols = Columns(w, name), rows = static_cast<int64_t>(values.size()) / cols;
    std::vector<uint8_t> bytes(values.size() * sizeof(float));
    std::copy_n(reinterpret_cast<const uint8_t*>(values.data()), bytes.size(), bytes.data());
    g.AddTensor(name, ORCD_TYPE_F32,
                rows == 1 ? std::vector<int64_t>{cols} : std::vector<int64_t>{cols, rows},
                std::move(bytes));
  }
  g.WriteFile(path);
}

double MaxAbsDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

int32_t ArgMax(const double* row, int n) {
  return static_cast<int32_t>(std::max_element(row, row + n) - row);
}

class SmolLm3Example : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_.LoadFile(ORCD_SDK_SMOLLM3_PLUGIN))
        << (registry_.refused().empty() ? "" : registry_.refused()[0].reason);
    WriteSmolLm3Gguf(weights_, model_);
  }

  // The CPU backend, or the CUDA backend on the emulated device (the GPU
  // kernels run on the host), so a plugin's plan is checked on both.
  std::unique_ptr<engine::Engine> Load(const std::filesystem::path& model,
                                       const std::string& device = "cpu") {
    engine::EngineOptions options;
    options.device = device;
    if (device == "cuda") options.device_runtime = engine::cuda::CreateEmulatedRuntime(64 << 20);
    options.threads = 2;
    options.context_length = 64;
    options.kv_type = engine::KvType::kF32;  // the reference keeps K and V exact
    return engine::Engine::Load(model, registry_, options);
  }

  PluginRegistry registry_{HostServices()};
  SmolLm3Weights weights_ = RandomSmolLm3();
  TempDir dir_;
  std::filesystem::path model_ = dir_ / "smollm3-test.gguf";
};

TEST_F(SmolLm3Example, ServesTheSmolLm3Architecture) {
  const auto claim = registry_.FindArchitecture("smollm3");
  ASSERT_NE(claim.plugin, nullptr);
  EXPECT_EQ(claim.plugin->name, "example-smollm3");
  ASSERT_EQ(claim.entry->n_chat_defaults, 1u);
  EXPECT_STREQ(claim.entry->chat_defaults[0].chat_format, "chatml");
  const auto engine = Load(model_);
  EXPECT_EQ(engine->info().arch_plugin, "example-smollm3");
  EXPECT_EQ(engine->info().vocab, weights_.n_vocab);
}

const std::vector<int32_t> kPrompt = {5, 17, 42, 3, 88, 61, 9, 30, 71, 2, 55, 14};
const std::vector<int32_t> kForced = {7, 90, 33, 46};

// The prompt as one prefill (every row), then one decode step per forced token.
std::vector<double> TeacherForced(engine::Engine& engine) {
  const std::span<const float> rows = engine.Prefill(kPrompt, engine::LogitRows::kAll);
  std::vector<double> out(rows.begin(), rows.end());
  for (int32_t token : kForced) {
    const std::span<const float> row = engine.Decode(token);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

std::vector<int32_t> TeacherForcedSequence() {
  std::vector<int32_t> sequence = kPrompt;
  sequence.insert(sequence.end(), kForced.begin(), kForced.end());
  return sequence;
}

TEST_F(SmolLm3Example, PrefillAndDecodeLogitsMatchTheReference) {
  auto engine = Load(model_);
  const std::vector<double> ours = TeacherForced(*engine);
  const std::vector<int32_t> sequence = TeacherForcedSequence();
  const std::vector<double> reference = SmolLm3ReferenceLogits(weights_, sequence);
  ASSERT_EQ(ours.size(), reference.size());
  EXPECT_LE(MaxAbsDiff(ours, reference), kTolerance);

  // The comparison would catch the family's traits done wrong.
  const double rope_everywhere =
      MaxAbsDiff(ours, SmolLm3ReferenceLogits(weights_, sequence, {.no_rope_layers = false}));
  const double neox_rope =
      MaxAbsDiff(ours, SmolLm3ReferenceLogits(weights_, sequence, {.neox_rope = true}));
  std::printf("max |ours - reference| %.3g; with RoPE in every layer %.3g; NeoX pairing %.3g\n",
              MaxAbsDiff(ours, reference), rope_everywhere, neox_rope);
  EXPECT_GT(rope_everywhere, 500 * kTolerance);
  EXPECT_GT(neox_rope, 500 * kTolerance);
}

TEST_F(SmolLm3Example, EmulatedCudaBackendMatchesTheReference) {
  auto engine = Load(model_, "cuda");
  const std::vector<double> ours = TeacherForced(*engine);
  const std::vector<double> reference = SmolLm3ReferenceLogits(weights_, TeacherForcedSequence());
  ASSERT_EQ(ours.size(), reference.size());
  EXPECT_LE(MaxAbsDiff(ours, reference), kTolerance);
}

TEST_F(SmolLm3Example, GreedyGenerationFollowsTheReference) {
  std::vector<int32_t> tokens = {11, 4, 77, 23, 60};
  auto engine = Load(model_);
  std::vector<int32_t> generated = {engine->PrefillGreedy(tokens)};
  for (int step = 1; step < 10; ++step) generated.push_back(engine->DecodeGreedy(generated.back()));

  std::vector<int32_t> expected;
  for (int step = 0; step < 10; ++step) {
    const std::vector<double> logits = SmolLm3ReferenceLogits(weights_, tokens);
    expected.push_back(ArgMax(&logits[logits.size() - weights_.n_vocab], weights_.n_vocab));
    tokens.push_back(expected.back());
  }
  EXPECT_EQ(generated, expected);
}

TEST_F(SmolLm3Example, FileWithoutAProjectionIsRefusedNamingTheTensor) {
  const std::filesystem::path broken = dir_ / "no-attn-k.gguf";
  WriteSmolLm3Gguf(weights_, broken, "blk.3.attn_k.weight");
  try {
    Load(broken);
    FAIL() << "a smollm3 file without blk.3.attn_k.weight loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("blk.3.attn_k.weight"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace orcd::testing
