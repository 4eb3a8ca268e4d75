// A damaged gpt-oss or gpt2 file is refused at load with an orcd::Error that
// names what is wrong (a missing metadata key, a tensor of the wrong shape),
// never a crash or garbage output. The files are the fixtures, rewritten with
// one thing removed or changed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "engine_test_support.h"
#include "golden.h"
#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/gguf/gguf_writer.h"

namespace orcd::testing {
namespace {

struct Edit {
  std::string drop_key;     // metadata key to leave out
  std::string drop_tensor;  // tensor to leave out
  std::string reshape;      // tensor whose ne[1] is halved
};

// models/<model>.gguf rewritten with `edit` applied, in a temp file.
std::filesystem::path Rewrite(const std::string& model, const Edit& edit) {
  const auto file = GgufFile::Open(FixtureModel(model));
  GgufWriter w;
  for (const auto& [key, value] : file->metadata()) {
    if (key != edit.drop_key && key != "general.alignment") w.Set(key, value);
  }
  for (const GgufTensorInfo& t : file->tensors()) {
    if (t.name == edit.drop_tensor) continue;
    std::vector<int64_t> ne(t.ne.begin(), t.ne.begin() + t.n_dims);
    uint64_t bytes = t.n_bytes;
    if (t.name == edit.reshape) {
      ne[1] /= 2;
      bytes /= 2;
    }
    w.AddTensor(t.name, t.type, ne, std::vector<uint8_t>(t.data, t.data + bytes));
  }
  const auto path = std::filesystem::temp_directory_path() /
                    ("orcd-gpt-bad-" + std::to_string(::getpid()) + ".gguf");
  w.WriteFile(path);
  return path;
}

// Loads the rewritten file; returns the error message (fails if it loads).
std::string LoadError(const std::string& model, const Edit& edit) {
  const auto path = Rewrite(model, edit);
  std::string message;
  try {
    engine::EngineOptions options;
    options.threads = 1;
    options.context_length = 64;
    engine::Engine::Load(path, BuildPlugins(), options);
    ADD_FAILURE() << "loaded a damaged " << model;
  } catch (const Error& e) {
    message = e.what();
    std::printf("%s: %s\n", ErrorCodeName(e.code()).data(), message.c_str());
  }
  std::filesystem::remove(path);
  return message;
}

TEST(GptBadInput, MissingExpertCountIsNamed) {
  const std::string m = LoadError("gptoss-tiny.F16", {.drop_key = "gpt-oss.expert_count"});
  EXPECT_NE(m.find("gpt-oss.expert_count"), std::string::npos) << m;
}

TEST(GptBadInput, MissingSlidingWindowIsNamed) {
  const std::string m =
      LoadError("gptoss-tiny.F16", {.drop_key = "gpt-oss.attention.sliding_window"});
  EXPECT_NE(m.find("sliding_window"), std::string::npos) << m;
}

TEST(GptBadInput, MissingSinksTensorIsNamed) {
  const std::string m = LoadError("gptoss-tiny.F16", {.drop_tensor = "blk.1.attn_sinks.weight"});
  EXPECT_NE(m.find("blk.1.attn_sinks.weight"), std::string::npos) << m;
}

TEST(GptBadInput, MisShapedExpertsAreNamed) {
  const std::string m = LoadError("gptoss-tiny.MXFP4_MOE", {.reshape = "blk.0.ffn_up_exps.weight"});
  EXPECT_NE(m.find("blk.0.ffn_up_exps.weight"), std::string::npos) << m;
}

TEST(GptBadInput, Gpt2WithoutPositionsIsNamed) {
  const std::string m = LoadError("gpt2-tiny.F16", {.drop_tensor = "position_embd.weight"});
  EXPECT_NE(m.find("position_embd.weight"), std::string::npos) << m;
}

TEST(GptBadInput, PositionsPastTheLearnedTableAreAnError) {
  engine::EngineOptions options;
  options.context_length = 512;  // the file has 256 learned positions
  auto engine = LoadFixtureEngine("gpt2-tiny.F16", options);
  const std::vector<int32_t> prompt(256, 464);
  engine->Prefill(prompt);
  EXPECT_THROW(engine->Decode(464), Error);
}

}  // namespace
}  // namespace orcd::testing
