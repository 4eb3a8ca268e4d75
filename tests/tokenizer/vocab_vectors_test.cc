// The upstream tokenizer test vectors (fixtures/vocab/*.inp/.out, produced by
// the models' own tokenizers): every case of every vocabulary that has a
// .gguf, with add_special = false and parse_special = false. Then each case's
// ids decoded one token at a time through the streaming detokenizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "host/tokenizer/streaming_detokenizer.h"
#include "host/tokenizer/utf8.h"
#include "tokenizer_test_support.h"

namespace orcd::testing {
namespace {

const std::vector<std::string> kVocabs = {"gpt-2", "llama-spm", "phi-3", "qwen2", "gpt-oss"};

class VocabVectorsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(VocabVectorsTest, EncodesEveryCase) {
  const std::string name = GetParam();
  const Tokenizer& tokenizer = VocabTokenizerFor(name);
  const std::vector<VocabVector> vectors = ReadVocabVectors(name);
  size_t passed = 0;
  for (size_t i = 0; i < vectors.size(); ++i) {
    const std::vector<TokenId> ids = tokenizer.Encode(vectors[i].text, false, false);
    if (ids == vectors[i].ids) {
      ++passed;
      continue;
    }
    ADD_FAILURE() << name << " case " << i + 1 << "\n  input:    '" << vectors[i].text
                  << "'\n  escaped:  " << Printable(vectors[i].text)
                  << "\n  expected: " << FormatIds(vectors[i].ids)
                  << "\n  actual:   " << FormatIds(ids);
  }
  std::printf("[ vectors  ] %s (%s): %zu/%zu cases match\n", name.c_str(),
              std::string(tokenizer.kind()).c_str(), passed, vectors.size());
  EXPECT_EQ(passed, vectors.size());
}

TEST_P(VocabVectorsTest, StreamingDecodeReproducesEveryCase) {
  const std::string name = GetParam();
  const Tokenizer& tokenizer = VocabTokenizerFor(name);
  size_t passed = 0;
  const std::vector<VocabVector> vectors = ReadVocabVectors(name);
  for (size_t i = 0; i < vectors.size(); ++i) {
    StreamingDetokenizer detokenizer(tokenizer);
    std::string text;
    for (const TokenId id : vectors[i].ids) {
      const std::string part = detokenizer.Push(id);
      ASSERT_TRUE(IsValidUtf8(part)) << name << " case " << i + 1 << ": invalid UTF-8 emitted";
      text += part;
    }
    text += detokenizer.Flush();
    // SentencePiece: the dummy-prefix space is dropped again (decode_strips_leading_space).
    if (text == vectors[i].text && text.find(kUtf8Replacement) == std::string::npos) {
      ++passed;
      continue;
    }
    ADD_FAILURE() << name << " case " << i + 1 << "\n  input:   " << Printable(vectors[i].text)
                  << "\n  decoded: " << Printable(text);
  }
  std::printf("[ decode   ] %s: %zu/%zu cases round-trip\n", name.c_str(), passed, vectors.size());
}

INSTANTIATE_TEST_SUITE_P(Vocabs, VocabVectorsTest, ::testing::ValuesIn(kVocabs),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string id = info.param;
                           std::replace(id.begin(), id.end(), '-', '_');
                           return id;
                         });

// A vocabulary added to the fixtures must be added to kVocabs too.
TEST(VocabVectorsCoverage, EveryVocabGgufWithVectorsIsTested) {
  std::set<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(FixturesDir() / "vocab")) {
    const std::string file = entry.path().filename().string();
    constexpr std::string_view kPrefix = "ggml-vocab-";
    if (file.starts_with(kPrefix) && file.ends_with(".gguf") &&
        std::filesystem::exists(entry.path().string() + ".inp")) {
      found.insert(file.substr(kPrefix.size(), file.size() - kPrefix.size() - 5));
    }
  }
  EXPECT_EQ(found, std::set<std::string>(kVocabs.begin(), kVocabs.end()));
}

}  // namespace
}  // namespace orcd::testing
