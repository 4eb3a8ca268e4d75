// Choosing the tokenizer (GGUF model names, tokenizer.json beside the model or
// given), the errors for what orcd does not know, and robustness: any bytes,
// long runs, several threads.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/tokenizer/tokenizer_factory.h"
#include "tests/unit/test_files.h"
#include "tiny_vocab.h"
#include "tokenizer_test_support.h"

namespace orcd::testing {
namespace {

void ExpectRefusal(const GgufWriter& writer, ErrorCode code, const std::string& named) {
  TempDir dir;
  writer.WriteFile(dir / "m.gguf");
  try {
    LoadTokenizer(dir / "m.gguf");
    ADD_FAILURE() << "accepted; expected an error naming " << named;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
  }
}

TEST(TokenizerFactory, KindFollowsTheGgufModelName) {
  EXPECT_EQ(VocabTokenizerFor("gpt-2").kind(), "gguf-bpe");
  EXPECT_EQ(VocabTokenizerFor("qwen2").kind(), "gguf-bpe");
  EXPECT_EQ(VocabTokenizerFor("gpt-oss").kind(), "gguf-bpe");
  EXPECT_EQ(VocabTokenizerFor("llama-spm").kind(), "gguf-spm");
  EXPECT_EQ(VocabTokenizerFor("phi-3").kind(), "gguf-spm");
  EXPECT_EQ(VocabTokenizerFor("gpt-oss").vocab_size(), 201088u);
}

TEST(TokenizerFactory, UnknownModelOrPreIsNamed) {
  ExpectRefusal(TinyGguf("bert"), ErrorCode::kUnsupported, "'bert'");
  ExpectRefusal(TinyGguf("gpt2", "falcon"), ErrorCode::kUnsupported, "'falcon'");
  GgufWriter no_tokens;
  no_tokens.SetString("tokenizer.ggml.model", "gpt2");
  no_tokens.SetString("tokenizer.ggml.pre", "gpt-2");
  ExpectRefusal(no_tokens, ErrorCode::kModelInvalid, "tokenizer.ggml.tokens");
  GgufWriter bad_bos = TinyGguf();
  bad_bos.SetU32("tokenizer.ggml.bos_token_id", 99999);
  ExpectRefusal(bad_bos, ErrorCode::kModelInvalid, "99999");
}

TEST(TokenizerFactory, TokenizerJsonBesideTheModelOrGiven) {
  TempDir dir;
  TinyGguf().WriteFile(dir / "m.gguf");
  EXPECT_EQ(LoadTokenizer(dir / "m.gguf")->kind(), "gguf-bpe");
  std::ofstream(dir / "tokenizer.json") << TinyTokenizerJson();
  const std::unique_ptr<Tokenizer> beside = LoadTokenizer(dir / "m.gguf");
  EXPECT_EQ(beside->kind(), "hf-json");
  EXPECT_EQ(beside->special_ids().eos, TinyVocab::kEndOfText);  // the model's rules apply
  EXPECT_EQ(LoadTokenizer(dir / "m.gguf", {.use_tokenizer_json_beside_model = false})->kind(),
            "gguf-bpe");
  std::filesystem::rename(dir / "tokenizer.json", dir / "other.json");
  EXPECT_EQ(LoadTokenizer(dir / "m.gguf", {.tokenizer_json = dir / "other.json"})->kind(),
            "hf-json");
  EXPECT_THROW(LoadTokenizer(dir / "m.gguf", {.tokenizer_json = dir / "missing.json"}), Error);
}

TEST(TokenizerRobustness, AnyBytesEncodeAndTheirPiecesGiveThemBack) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(255 - i);
  bytes += "\xE4\xBD";  // truncated at the end
  for (const std::string name : {"gpt-2", "qwen2", "gpt-oss"}) {
    const Tokenizer& t = VocabTokenizerFor(name);
    std::string back;
    for (const TokenId id : t.Encode(bytes, false, false)) back += t.TokenToPiece(id);
    EXPECT_EQ(back, bytes) << name;
  }
  const Tokenizer& phi3 = VocabTokenizerFor("phi-3");
  std::string back;
  for (const TokenId id : phi3.Encode(bytes, false, false)) back += phi3.TokenToPiece(id);
  EXPECT_EQ(back, " " + bytes);  // with the dummy prefix
}

TEST(TokenizerRobustness, LongRunsOfOneCharacter) {
  for (const std::string name : {"gpt-2", "qwen2", "gpt-oss", "llama-spm"}) {
    const Tokenizer& t = VocabTokenizerFor(name);
    for (const char c : {' ', 'a', '\n', '7', '='}) {
      const std::string text = "x" + std::string(200000, c) + "y";
      std::string back;
      for (const TokenId id : t.Encode(text, false, false)) back += t.TokenToPiece(id);
      if (t.decode_strips_leading_space()) back.erase(0, 1);
      EXPECT_EQ(back, text) << name << " run of " << static_cast<int>(c);
    }
  }
}

TEST(TokenizerRobustness, ConcurrentEncodesAgree) {
  const Tokenizer& t = VocabTokenizerFor("gpt-oss");
  const std::vector<VocabVector> vectors = ReadVocabVectors("gpt-oss");
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (size_t k = 0; k < mismatches.size(); ++k) {
    threads.emplace_back([&, k] {
      for (int round = 0; round < 20; ++round) {
        for (const VocabVector& v : vectors)
          mismatches[k] += t.Encode(v.text, false, false) != v.ids;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace orcd::testing
