// hf-json: the Qwen2 tokenizer.json agrees with gguf-bpe on the same
// vocabulary and with the reference ids; tokenizer.json variants and the
// components orcd refuses.
#include <gtest/gtest.h>

#include <fstream>

#include "host/common/status.h"
#include "host/gguf/gguf_file.h"
#include "host/tokenizer/hf_json_tokenizer.h"
#include "tests/unit/test_files.h"
#include "tiny_vocab.h"
#include "tokenizer_test_support.h"

namespace orcd::testing {
namespace {

void WriteText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(HfJsonQwen2, AgreesWithGgufBpeOnEveryQwen2Vector) {
  const Tokenizer& hf = Qwen2HfJsonTokenizer();
  const Tokenizer& gguf = VocabTokenizerFor("qwen2");
  EXPECT_EQ(hf.kind(), "hf-json");
  const std::vector<VocabVector> vectors = ReadVocabVectors("qwen2");
  size_t agree = 0;
  for (size_t i = 0; i < vectors.size(); ++i) {
    const std::vector<TokenId> from_json = hf.Encode(vectors[i].text, false, false);
    const std::vector<TokenId> from_gguf = gguf.Encode(vectors[i].text, false, false);
    if (from_json == from_gguf && from_json == vectors[i].ids) {
      ++agree;
      continue;
    }
    ADD_FAILURE() << "qwen2 case " << i + 1 << "\n  input:     " << Printable(vectors[i].text)
                  << "\n  expected:  " << FormatIds(vectors[i].ids)
                  << "\n  hf-json:   " << FormatIds(from_json)
                  << "\n  gguf-bpe:  " << FormatIds(from_gguf);
  }
  std::printf("[ hf-json  ] qwen2: %zu/%zu cases agree with gguf-bpe and the reference\n", agree,
              vectors.size());
}

TEST(HfJsonQwen2, TakesSpecialIdsFromTheModelAndParsesControlTokens) {
  const Tokenizer& hf = Qwen2HfJsonTokenizer();
  EXPECT_EQ(hf.vocab_size(), 151646u);  // the file's tokens; the GGUF pads to 151936
  EXPECT_EQ(hf.special_ids().bos, 151643);
  EXPECT_EQ(hf.special_ids().eos, 151645);
  EXPECT_EQ(hf.special_ids().eot, 151645);
  EXPECT_FALSE(hf.add_bos());
  const std::string text = "<|im_start|>user\nHi<|im_end|>";
  EXPECT_EQ(hf.Encode(text, true, true), VocabTokenizerFor("qwen2").Encode(text, true, true));
  EXPECT_EQ(hf.Encode(text, true, true).front(), 151644);
}

TEST(HfJsonQwen2, NormalizesToNfcLikeGgufBpe) {
  const std::string decomposed = "e\xCC\x81t\xC3\xA9";  // e + U+0301, then é
  const std::vector<TokenId> ids = Qwen2HfJsonTokenizer().Encode(decomposed, false, false);
  EXPECT_EQ(ids, Qwen2HfJsonTokenizer().Encode("\xC3\xA9t\xC3\xA9", false, false));
  EXPECT_EQ(ids, VocabTokenizerFor("qwen2").Encode(decomposed, false, false));
}

TEST(HfJsonTiny, MergesAsPairsEqualMergesAsStrings) {
  TempDir dir;
  WriteText(dir / "strings.json", TinyTokenizerJson());
  WriteText(dir / "pairs.json", TinyTokenizerJson({.merges_as_pairs = true}));
  const auto a = LoadHfJsonTokenizer(dir / "strings.json");
  const auto b = LoadHfJsonTokenizer(dir / "pairs.json");
  const std::vector<TokenId> expected = {259, 260};  // "hello", "Ġw"
  EXPECT_EQ(a->Encode("hello w", false, false), expected);
  EXPECT_EQ(b->Encode("hello w", false, false), expected);
}

TEST(HfJsonTiny, SpecialIdsFromTokenizerConfigBesideTheFile) {
  TempDir dir;
  WriteText(dir / "tokenizer.json", TinyTokenizerJson());
  WriteText(
      dir / "tokenizer_config.json",
      R"({"bos_token": {"content": "<|endoftext|>"}, "eos_token": "<|endoftext|>", "add_bos_token": true})");
  const auto t = LoadHfJsonTokenizer(dir / "tokenizer.json");
  EXPECT_EQ(t->special_ids().bos, TinyVocab::kEndOfText);
  EXPECT_EQ(t->special_ids().eos, TinyVocab::kEndOfText);
  EXPECT_TRUE(t->add_bos());
  EXPECT_EQ(t->Encode("he", true, false), (std::vector<TokenId>{TinyVocab::kEndOfText, 256}));
}

TEST(HfJsonTiny, SplitThenByteLevelWithoutRegex) {
  TempDir dir;
  WriteText(dir / "t.json",
            TinyTokenizerJson({.pre_tokenizer = R"({"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"String": "l"}, "behavior": "Isolated", "invert": false},
                {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]})"}));
  // Every "l" is its own piece, so "ll" can never merge.
  EXPECT_EQ(LoadHfJsonTokenizer(dir / "t.json")->Encode("hell", false, false),
            (std::vector<TokenId>{256, 'l', 'l'}));  // byte b is id b
}

struct Refusal {
  TinyJsonOptions options;
  ErrorCode code;
  std::string named;
};

TEST(HfJsonTiny, RefusesWhatItDoesNotImplementByName) {
  const std::vector<Refusal> refusals = {
      {{.normalizer = R"({"type": "Lowercase"})"}, ErrorCode::kUnsupported, "Lowercase"},
      {{.pre_tokenizer = R"({"type": "Metaspace"})"}, ErrorCode::kUnsupported, "ByteLevel"},
      {{.pre_tokenizer =
            R"({"type": "Sequence", "pretokenizers": [{"type": "Digits"}, {"type": "ByteLevel"}]})"},
       ErrorCode::kUnsupported,
       "Digits"},
      {{.model_type = "WordPiece"}, ErrorCode::kUnsupported, "WordPiece"},
  };
  TempDir dir;
  for (const Refusal& r : refusals) {
    WriteText(dir / "t.json", TinyTokenizerJson(r.options));
    try {
      LoadHfJsonTokenizer(dir / "t.json");
      ADD_FAILURE() << "accepted; expected a refusal naming " << r.named;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), r.code) << e.what();
      EXPECT_NE(std::string(e.what()).find(r.named), std::string::npos) << e.what();
    }
  }
  WriteText(dir / "t.json", "{\"model\": ");
  EXPECT_THROW(LoadHfJsonTokenizer(dir / "t.json"), Error);
  EXPECT_THROW(LoadHfJsonTokenizer(dir / "missing.json"), Error);
}

TEST(HfJsonTiny, RefusesATokenizerJsonOfAnotherModel) {
  TempDir dir;
  WriteText(dir / "t.json", TinyTokenizerJson({.first_token_text = "XYZ"}));
  TinyGguf().WriteFile(dir / "m.gguf");
  try {
    LoadHfJsonTokenizer(dir / "t.json", GgufFile::Open(dir / "m.gguf").get());
    ADD_FAILURE() << "a mismatching tokenizer.json was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kModelInvalid);
    EXPECT_NE(std::string(e.what()).find("token 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace orcd::testing
