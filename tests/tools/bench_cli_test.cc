// orcd-bench as a user (or CI's benchmark job) runs it: the JSON it prints
// carries every figure bench/RESULTS.md quotes, and bad flags are refused with
// the flag's name. No timing is asserted: only that the figures exist and are
// physically possible.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "cli_runner.h"
#include "tests/unit/test_files.h"

namespace orcd::testing {
namespace {

// The number after "key": in flat JSON text; NaN when the key is absent.
double JsonNumber(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return std::nan("");
  return std::strtod(json.c_str() + at + key.size() + 3, nullptr);
}

TEST(BenchCli, ModelReportsPrefillDecodeAndTtftAsJson) {
  const std::string model = FixturePath("models/qwen2-tiny.Q4_K_M.gguf").string();
  const CliResult r = RunTool("orcd-bench", {"model", "--model", model, "--json", "--prompt", "16",
                                             "--gen", "4", "--repeat", "1", "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"architecture\":\"qwen2\""), std::string::npos) << r.out;
  EXPECT_EQ(JsonNumber(r.out, "prompt_tokens"), 16);
  EXPECT_EQ(JsonNumber(r.out, "gen_tokens"), 4);
  EXPECT_GT(JsonNumber(r.out, "prefill_tok_s"), 0);
  EXPECT_GT(JsonNumber(r.out, "decode_tok_s"), 0);
  EXPECT_GT(JsonNumber(r.out, "ttft_ms"), 0);
  // Decode reads every weight once per token: the file's weights, not zero.
  EXPECT_GT(JsonNumber(r.out, "decode_weight_bytes_per_token"), 1e6);
}

TEST(BenchCli, TokenizerReportsEveryFixtureVocabulary) {
  const CliResult r =
      RunTool("orcd-bench", {"tokenizer", "--json", "--megabytes", "0.01", "--min-time", "0.001"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* vocab : {"gpt-2", "qwen2", "gpt-oss", "llama-spm", "phi-3"}) {
    EXPECT_NE(r.out.find(std::string("\"vocab\": \"") + vocab + "\""), std::string::npos)
        << vocab << " missing from\n"
        << r.out;
  }
  EXPECT_GT(JsonNumber(r.out, "encode_mb_s"), 0);
}

// A model's own weight shapes and a batch of tokens: the kernels the batched
// decode runs, timed on the shape asked for. Q4_K: its batched 8-bit kernel
// is in every x86 variant (Q8_0's is AVX-512 VNNI's alone).
TEST(BenchCli, QuantTimesTheShapesAndTokensAskedFor) {
  const CliResult r = RunTool(
      "orcd-bench", {"quant", "--json", "--types", "Q4_K", "--activations", "q8", "--shapes",
                     "48x512", "--tokens", "3", "--threads", "1", "--min-time", "0.001"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(JsonNumber(r.out, "tokens"), 3) << r.out;
  EXPECT_EQ(JsonNumber(r.out, "rows"), 48) << r.out;
  EXPECT_EQ(JsonNumber(r.out, "cols"), 512) << r.out;
  EXPECT_GT(JsonNumber(r.out, "cpu_1t_gbps"), 0) << r.out;

  const CliResult shape = RunTool("orcd-bench", {"quant", "--shapes", "896"});
  EXPECT_EQ(shape.exit_code, 2);
  EXPECT_NE(shape.err.find("--shapes"), std::string::npos) << shape.err;
  const CliResult tokens = RunTool("orcd-bench", {"quant", "--tokens", "0"});
  EXPECT_EQ(tokens.exit_code, 2);
  EXPECT_NE(tokens.err.find("--tokens"), std::string::npos) << tokens.err;
}

TEST(BenchCli, BadFlagsAreRefusedNamingTheFlag) {
  const CliResult number = RunTool("orcd-bench", {"model", "--model", "m.gguf", "--threads", "2x"});
  EXPECT_EQ(number.exit_code, 2);
  EXPECT_NE(number.err.find("--threads"), std::string::npos) << number.err;

  const CliResult unknown = RunTool("orcd-bench", {"quant", "--bogus"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--bogus"), std::string::npos) << unknown.err;

  const CliResult missing = RunTool("orcd-bench", {"model", "--json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--model"), std::string::npos) << missing.err;

  const CliResult help = RunTool("orcd-bench", {"tokenizer", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage: orcd-bench tokenizer"), std::string::npos);
}

}  // namespace
}  // namespace orcd::testing
