// orcd-run as a user runs it: logits it dumps match the llama.cpp goldens,
// sampling is reproducible, and bad input gives a clear message and the
// documented exit status (1 error, 2 usage).
#include <gtest/gtest.h>

#include <filesystem>

#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "golden.h"

namespace orcd::testing {
namespace {

std::string JoinIds(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  std::string s;
  for (const auto* v : {&a, &b}) {
    for (int32_t id : *v) s += (s.empty() ? "" : ",") + std::to_string(id);
  }
  return s;
}

std::vector<float> ReadFloats(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  std::vector<float> v(static_cast<size_t>(in.tellg()) / sizeof(float));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(v.data()),
          static_cast<std::streamsize>(v.size() * sizeof(float)));
  return v;
}

struct DumpCase {
  const char* model;
  bool quantized;
};

class DumpLogits : public ::testing::TestWithParam<DumpCase> {};

// The golden sequence (prompt + greedy tokens) fed as --tokens with -n 0:
// one row per position, within the golden test's tolerances.
TEST_P(DumpLogits, TokensRowsMatchGolden) {
  const DumpCase c = GetParam();
  const Golden golden = LoadGolden(c.model);
  TempDir dir;
  const auto dump = dir.path() / "rows.f32";
  const CliResult r =
      RunTool("orcd-run", {"--model", FixtureModel(c.model).string(), "--tokens",
                           JoinIds(golden.prompt, golden.greedy), "-n", "0", "--threads", "2",
                           "--ctx", "512", "--dump-logits", dump.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<float> ours = ReadFloats(dump);
  ASSERT_EQ(ours.size(), golden.logits.size());
  const RowStats s = CompareRows(ours, golden.logits, golden.vocab);
  if (c.quantized) {
    EXPECT_LE(s.median, 4e-2);
    EXPECT_LE(s.max, 8e-2);
  } else {
    EXPECT_LE(s.p90, 4e-3);
    EXPECT_LE(s.max, 2e-2);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DumpLogits,
                         ::testing::Values(DumpCase{"qwen2-tiny.F16", false},
                                           DumpCase{"phi3-tiny.Q4_K_M", true}),
                         [](const ::testing::TestParamInfo<DumpCase>& info) {
                           std::string name = info.param.model;
                           for (char& ch : name) ch = (ch == '-' || ch == '.') ? '_' : ch;
                           return name;
                         });

// Prompt rows, then one row per generated token.
TEST(RunCli, DumpHasOneRowPerPromptTokenAndGeneratedToken) {
  const Golden golden = LoadGolden("qwen2-tiny.F16");
  TempDir dir;
  const auto dump = dir.path() / "rows.f32";
  const CliResult r =
      RunTool("orcd-run", {"--model", FixtureModel("qwen2-tiny.F16").string(), "--tokens",
                           JoinIds(golden.prompt, {}), "-n", "5", "--ignore-eos", "--threads", "2",
                           "--dump-logits", dump.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<float> ours = ReadFloats(dump);
  ASSERT_EQ(ours.size(), (golden.prompt.size() + 5) * static_cast<size_t>(golden.vocab));
  const size_t prompt_floats = golden.prompt.size() * static_cast<size_t>(golden.vocab);
  const RowStats s =
      CompareRows(std::span<const float>(ours).first(prompt_floats),
                  std::span<const float>(golden.logits).first(prompt_floats), golden.vocab);
  EXPECT_LE(s.max, 2e-2);
  EXPECT_NE(r.err.find("decode:"), std::string::npos) << "speed summary missing: " << r.err;
}

TEST(RunCli, SameSeedSameTextAtTemperature) {
  const std::vector<std::string> args = {"--model",
                                         FixtureModel("qwen2-tiny.Q4_0").string(),
                                         "--prompt",
                                         "The quick brown fox",
                                         "-n",
                                         "20",
                                         "--temperature",
                                         "0.7",
                                         "--top-p",
                                         "0.9",
                                         "--seed",
                                         "99",
                                         "--threads",
                                         "2",
                                         "--quiet"};
  const CliResult a = RunTool("orcd-run", args);
  const CliResult b = RunTool("orcd-run", args);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_FALSE(a.out.empty());
  EXPECT_EQ(a.out, b.out);
}

TEST(RunCli, MissingModelIsAnError) {
  const CliResult r = RunTool("orcd-run", {"--model", "/nonexistent/m.gguf", "--tokens", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("NOT_FOUND"), std::string::npos) << r.err;
}

TEST(RunCli, MalformedModelIsAnError) {
  TempDir dir;
  const auto bad = dir.path() / "bad.gguf";
  std::ofstream(bad) << "this is not a gguf file";
  const CliResult r = RunTool("orcd-run", {"--model", bad.string(), "--tokens", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("MODEL_INVALID"), std::string::npos) << r.err;
}

// Without a GPU (or without CUDA in the build) --device cuda is an error that
// names the device: never a silent CPU run.
TEST(RunCli, CudaWithoutAGpuIsRefusedClearly) {
  if (std::filesystem::exists("/dev/nvidiactl")) GTEST_SKIP() << "a GPU is present here";
  const CliResult r = RunTool("orcd-run", {"--model", FixtureModel("qwen2-tiny.F16").string(),
                                           "--tokens", "1", "--device", "cuda"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("cpu"), std::string::npos) << r.out;
}

TEST(RunCli, TokenOutsideVocabularyIsAnError) {
  const CliResult r = RunTool(
      "orcd-run", {"--model", FixtureModel("qwen2-tiny.F16").string(), "--tokens", "1,999999"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("outside the vocabulary"), std::string::npos) << r.err;
}

TEST(RunCli, BadCommandLinesAreUsageErrors) {
  const std::string model = FixtureModel("qwen2-tiny.F16").string();
  const std::vector<std::vector<std::string>> bad = {
      {"--model", model, "--tokens", "1", "--bogus-flag", "3"},
      {"--model", model},                                     // no prompt
      {"--model", model, "--tokens", "1", "--prompt", "hi"},  // both
      {"--model", model, "--tokens", "1,x"},
      {"--model", model, "--tokens", "1", "-n", "-4"},
      {"--model", model, "--tokens", "1", "--temperature", "hot"},
      {"--model", model, "--tokens", "1", "--device", "tpu"},
      {"--tokens", "1"},  // no model
  };
  for (const auto& args : bad) {
    const CliResult r = RunTool("orcd-run", args);
    EXPECT_EQ(r.exit_code, 2) << args[args.size() - 1] << ": " << r.err;
    EXPECT_NE(r.err.find("usage:"), std::string::npos);
  }
}

}  // namespace
}  // namespace orcd::testing
