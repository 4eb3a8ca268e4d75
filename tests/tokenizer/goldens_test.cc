// The tokenizations recorded in fixtures/goldens/*.json, with the tokenizer
// built from the golden's model file: prompt_tokens (add_special and
// parse_special), the `tokenize` strings (tokens: neither; tokens_add_special:
// add_special only), their detokenized text, and the vocab facts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "host/tokenizer/streaming_detokenizer.h"
#include "host/tokenizer/tokenizer_factory.h"
#include "tokenizer_test_support.h"

namespace orcd::testing {
namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;

Object::Ptr ReadJson(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  Poco::JSON::Parser parser;
  return parser.parse(text.str()).extract<Object::Ptr>();
}

std::vector<TokenId> Ids(const Array::Ptr& array) {
  std::vector<TokenId> ids;
  for (size_t i = 0; i < array->size(); ++i)
    ids.push_back(array->getElement<TokenId>(static_cast<unsigned>(i)));
  return ids;
}

std::vector<std::filesystem::path> GoldenFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(FixturesDir() / "goldens")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class GoldensTest : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(GoldensTest, TokenizationMatches) {
  const Object::Ptr golden = ReadJson(GetParam());
  const std::filesystem::path model =
      FixturesDir() / "models" / golden->getValue<std::string>("model");
  const std::unique_ptr<Tokenizer> tokenizer = LoadModelTokenizer(model);
  const std::string where = GetParam().filename().string();

  const Object::Ptr vocab = golden->getObject("vocab");
  EXPECT_EQ(tokenizer->add_bos(), vocab->getValue<bool>("add_bos")) << where;
  EXPECT_EQ(tokenizer->special_ids().bos, vocab->getValue<TokenId>("bos")) << where;
  EXPECT_EQ(tokenizer->special_ids().eos, vocab->getValue<TokenId>("eos")) << where;
  EXPECT_EQ(tokenizer->special_ids().eot, vocab->getValue<TokenId>("eot")) << where;
  EXPECT_EQ(tokenizer->vocab_size(), golden->getValue<size_t>("n_vocab")) << where;

  const std::string prompt = golden->getValue<std::string>("prompt_text");
  const std::vector<TokenId> prompt_ids = tokenizer->Encode(prompt, true, true);
  EXPECT_EQ(FormatIds(prompt_ids), FormatIds(Ids(golden->getArray("prompt_tokens"))))
      << where << " prompt: " << prompt;

  const Array::Ptr cases = golden->getArray("tokenize");
  ASSERT_GT(cases->size(), 0u);
  for (size_t i = 0; i < cases->size(); ++i) {
    const Object::Ptr c = cases->getObject(static_cast<unsigned>(i));
    const std::string text = c->getValue<std::string>("text");
    const std::vector<TokenId> expected = Ids(c->getArray("tokens"));
    EXPECT_EQ(FormatIds(tokenizer->Encode(text, false, false)), FormatIds(expected))
        << where << " tokenize[" << i << "]: " << Printable(text);
    EXPECT_EQ(FormatIds(tokenizer->Encode(text, true, false)),
              FormatIds(Ids(c->getArray("tokens_add_special"))))
        << where << " tokenize[" << i << "] add_special: " << Printable(text);
    EXPECT_EQ(DecodeTokens(*tokenizer, expected), c->getValue<std::string>("detokenized"))
        << where << " tokenize[" << i << "] detokenized";
  }
}

INSTANTIATE_TEST_SUITE_P(Goldens, GoldensTest, ::testing::ValuesIn(GoldenFiles()),
                         [](const ::testing::TestParamInfo<std::filesystem::path>& info) {
                           std::string id = info.param.stem().string();
                           for (char& c : id) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return id;
                         });

}  // namespace
}  // namespace orcd::testing
