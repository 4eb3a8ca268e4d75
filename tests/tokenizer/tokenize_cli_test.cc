// orcd-tokenize: ids as a JSON array, text back from ids, flags, exit codes.
#include <gtest/gtest.h>

#include "tests/unit/test_files.h"
#include "tokenizer_test_support.h"

namespace orcd::testing {
namespace {

std::string Cli(const std::string& args) {
  return std::string(ORCD_BIN_DIR) + "/orcd-tokenize " + args + " 2>&1";
}

std::string Vocab(const std::string& name) { return VocabGguf(name).string(); }

TEST(TokenizeCli, TextToIdsAndBack) {
  CommandResult r = RunCommand(
      Cli("--model " + Vocab("qwen2") + " --text 'Hello world<|im_end|>' --parse-special"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "[9707, 1879, 151645]\n");
  r = RunCommand(Cli("--model " + Vocab("qwen2") + " --text '<|im_end|>'"));
  EXPECT_EQ(r.output, "[27, 91, 318, 6213, 91, 29]\n");
  r = RunCommand(Cli("--model " + Vocab("qwen2") + " --ids 9707,1879,151645"));
  EXPECT_EQ(r.output, "Hello world<|im_end|>\n");
  r = RunCommand(Cli("--model " + Vocab("qwen2") + " --ids 9707,1879,151645 --no-special"));
  EXPECT_EQ(r.output, "Hello world\n");
}

TEST(TokenizeCli, BosFollowsTheModelUnlessNoSpecial) {
  EXPECT_EQ(RunCommand(Cli("--model " + Vocab("llama-spm") + " --text 'Hello world'")).output,
            "[1, 15043, 3186]\n");
  EXPECT_EQ(RunCommand(Cli("--model " + Vocab("llama-spm") + " --text 'Hello world' --no-special"))
                .output,
            "[15043, 3186]\n");
}

TEST(TokenizeCli, HfJsonAndInfo) {
  const std::string json = (FixturesDir() / "vocab" / "qwen2-tokenizer.json").string();
  CommandResult r = RunCommand(Cli("--tokenizer-json " + json + " --text 'Hello world'"));
  EXPECT_EQ(r.output, "[9707, 1879]\n");
  r = RunCommand(Cli("--model " + Vocab("qwen2") + " --tokenizer-json " + json + " --info"));
  EXPECT_NE(r.output.find("\"kind\": \"hf-json\""), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"eos\": 151645"), std::string::npos) << r.output;
}

TEST(TokenizeCli, ErrorsAndUsage) {
  CommandResult r = RunCommand(Cli("--model /nonexistent.gguf --text x"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("/nonexistent.gguf"), std::string::npos) << r.output;
  EXPECT_EQ(RunCommand(Cli("--model " + Vocab("qwen2") + " --ids 1,x")).exit_code, 2);
  EXPECT_EQ(RunCommand(Cli("--text x")).exit_code, 2);
  EXPECT_EQ(RunCommand(Cli("")).exit_code, 2);
}

}  // namespace
}  // namespace orcd::testing
