// orcd-synth's demo model (the README demo serves it): it loads through the
// real plugins, its tokenizer is the real Qwen2 one, and it generates.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cli_runner.h"
#include "engine_test_support.h"
#include "host/gguf/gguf_file.h"
#include "host/tokenizer/tokenizer_factory.h"

namespace orcd::testing {
namespace {

TEST(SynthCli, DemoModelLoadsTokenizesAndGenerates) {
  TempDir dir;
  const auto model = dir.path() / "demo-qwen2.gguf";
  const CliResult synth = RunTool("orcd-synth", {"--shape", "demo", "--out", model.string()});
  ASSERT_EQ(synth.exit_code, 0) << synth.err;

  const CliResult inspect = RunTool("orcd-inspect", {model.string()});
  EXPECT_EQ(inspect.exit_code, 0) << inspect.out << inspect.err;

  auto tokenizer = LoadTokenizer(model);
  const std::vector<TokenId> hello = tokenizer->Encode("Hello, orcd", true, false);
  EXPECT_EQ(hello.size(), 4u);  // "Hello" "," " or" "cd" in the Qwen2 vocabulary

  engine::EngineOptions options;
  options.threads = 2;
  options.context_length = 512;  // conf/demo.yaml
  auto engine = engine::Engine::Load(model, BuildPlugins(), options);
  EXPECT_EQ(engine->info().architecture, "qwen2");
  EXPECT_EQ(engine->info().vocab, 151936);
  std::span<const float> logits = engine->Prefill(hello);
  for (float v : logits) ASSERT_TRUE(std::isfinite(v));
  for (int i = 0; i < 8; ++i) engine->Decode(100 + i);
  EXPECT_EQ(engine->position(), 12);

  const CliResult run = RunTool("orcd-run", {"--model", model.string(), "--prompt", "Hello", "-n",
                                             "8", "--ignore-eos", "--threads", "2"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(run.out.empty());
}

TEST(SynthCli, SameSeedSameFile) {
  TempDir dir;
  const auto a = dir.path() / "a.gguf";
  const auto b = dir.path() / "b.gguf";
  ASSERT_EQ(
      RunTool("orcd-synth", {"--shape", "demo", "--seed", "5", "--out", a.string()}).exit_code, 0);
  ASSERT_EQ(
      RunTool("orcd-synth", {"--shape", "demo", "--seed", "5", "--out", b.string()}).exit_code, 0);
  EXPECT_EQ(std::filesystem::file_size(a), std::filesystem::file_size(b));
  auto fa = GgufFile::Open(a);
  auto fb = GgufFile::Open(b);
  const GgufTensorInfo* ta = fa->FindTensor("blk.1.ffn_down.weight");
  const GgufTensorInfo* tb = fb->FindTensor("blk.1.ffn_down.weight");
  ASSERT_TRUE(ta && tb);
  EXPECT_EQ(std::memcmp(ta->data, tb->data, ta->n_bytes), 0);
}

TEST(SynthCli, BadArgumentsAreUsageErrors) {
  EXPECT_EQ(RunTool("orcd-synth", {"--shape", "gpt-9", "--out", "/tmp/x.gguf"}).exit_code, 2);
  EXPECT_EQ(RunTool("orcd-synth", {"--shape", "demo"}).exit_code, 2);
  EXPECT_EQ(RunTool("orcd-synth", {"--shape", "demo", "--out", "/tmp/x.gguf", "--vocab",
                                   "/nonexistent/vocab.gguf"})
                .exit_code,
            1);
}

}  // namespace
}  // namespace orcd::testing
