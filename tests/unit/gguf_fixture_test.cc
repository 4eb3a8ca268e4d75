// The GGUF reader against every fixture model, checked key by key and tensor
// by tensor against models/manifest.json (written by gguf-py, not by us), and
// against the metadata-only vocab files.
#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <fstream>
#include <sstream>

#include "host/gguf/file_type.h"
#include "host/gguf/ggml_type_traits.h"
#include "host/gguf/gguf_file.h"
#include "tests/unit/test_files.h"

namespace orcd {
namespace {

Poco::JSON::Object::Ptr LoadManifest() {
  std::ifstream f(testing::FixturePath("models/manifest.json"));
  std::stringstream ss;
  ss << f.rdbuf();
  return Poco::JSON::Parser().parse(ss.str()).extract<Poco::JSON::Object::Ptr>();
}

void CheckAgainstManifest(const std::string& name, const Poco::JSON::Object::Ptr& entry) {
  auto file = GgufFile::Open(testing::FixturePath("models/" + name));
  EXPECT_EQ(file->file_size(), entry->getValue<uint64_t>("size_bytes"));

  auto metadata = entry->getObject("metadata");
  EXPECT_EQ(file->metadata().size(), metadata->size()) << name;
  for (const auto& [key, var] : *metadata) {
    auto spec = var.extract<Poco::JSON::Object::Ptr>();
    const GgufValue* v = file->Find(key);
    ASSERT_NE(v, nullptr) << name << ": missing " << key;
    if (spec->has("array_of")) {
      EXPECT_EQ(v->type, GgufType::kArray) << key;
      EXPECT_EQ(GgufTypeName(v->element_type), spec->getValue<std::string>("array_of")) << key;
      EXPECT_EQ(v->items.size(), spec->getValue<uint64_t>("len")) << key;
      continue;
    }
    const std::string type = spec->getValue<std::string>("type");
    EXPECT_EQ(GgufTypeName(v->type), type) << key;
    if (type == "STRING") {
      EXPECT_EQ(std::string(v->str), spec->getValue<std::string>("value")) << key;
    } else if (type == "BOOL") {
      EXPECT_EQ(*v->AsBool(), spec->getValue<bool>("value")) << key;
    } else if (type == "FLOAT32" || type == "FLOAT64") {
      EXPECT_FLOAT_EQ(static_cast<float>(v->f), static_cast<float>(spec->getValue<double>("value")))
          << key;
    } else {
      EXPECT_EQ(*v->AsI64(), spec->getValue<int64_t>("value")) << key;
    }
  }

  auto tensors = entry->getArray("tensors");
  ASSERT_EQ(file->tensors().size(), tensors->size()) << name;
  for (size_t k = 0; k < tensors->size(); ++k) {
    auto spec = tensors->getObject(static_cast<unsigned>(k));
    const GgufTensorInfo& t = file->tensors()[k];
    EXPECT_EQ(t.name, spec->getValue<std::string>("name")) << name << " tensor " << k;
    EXPECT_EQ(GgmlTypeName(t.type), spec->getValue<std::string>("type")) << t.name;
    EXPECT_EQ(t.n_bytes, spec->getValue<uint64_t>("n_bytes")) << t.name;
    auto ne = spec->getArray("ne");
    ASSERT_EQ(t.n_dims, ne->size()) << t.name;
    for (size_t d = 0; d < ne->size(); ++d) {
      EXPECT_EQ(t.ne[d], ne->getElement<int64_t>(static_cast<unsigned>(d))) << t.name;
    }
  }
}

TEST(GgufFixtures, EveryModelMatchesTheManifest) {
  auto manifest = LoadManifest();
  ASSERT_GE(manifest->size(), 8u);
  for (const auto& [name, entry] : *manifest) {
    SCOPED_TRACE(name);
    CheckAgainstManifest(name, entry.extract<Poco::JSON::Object::Ptr>());
  }
}

TEST(GgufFixtures, VocabFilesParse) {
  for (const char* name :
       {"ggml-vocab-gpt-2.gguf", "ggml-vocab-phi-3.gguf", "ggml-vocab-llama-spm.gguf",
        "ggml-vocab-qwen2.gguf", "ggml-vocab-gpt-oss.gguf"}) {
    SCOPED_TRACE(name);
    auto f = GgufFile::Open(testing::FixturePath(std::string("vocab/") + name));
    EXPECT_TRUE(f->tensors().empty());
    auto tokens = f->GetStringArray("tokenizer.ggml.tokens");
    ASSERT_TRUE(tokens.has_value());
    EXPECT_GT(tokens->size(), 30000u);
  }
}

TEST(GgufFixtures, QuantKindAsUsersNameIt) {
  const std::pair<const char*, const char*> cases[] = {
      {"qwen2-tiny.F16.gguf", "F16"},   {"qwen2-tiny.Q4_K_M.gguf", "Q4_K_M"},
      {"qwen2-tiny.Q4_0.gguf", "Q4_0"}, {"phi3-tiny.Q4_K_M.gguf", "Q4_K_M"},
      {"gpt2-tiny.Q8_0.gguf", "Q8_0"},  {"gptoss-tiny.MXFP4_MOE.gguf", "MXFP4"}};
  for (const auto& [file, kind] : cases) {
    EXPECT_EQ(QuantKind(*GgufFile::Open(testing::FixturePath(std::string("models/") + file))), kind)
        << file;
  }
  // Without general.file_type: the dominant 2-D weight type.
  testing::TempDir dir;
  GgufWriter w;
  w.AddTensor("a", 8 /*Q8_0*/, {32, 4}, std::vector<uint8_t>(4 * 34));
  w.AddTensor("b", 0 /*F32*/, {32}, std::vector<uint8_t>(128));
  w.WriteFile(dir / "m.gguf");
  EXPECT_EQ(QuantKind(*GgufFile::Open(dir / "m.gguf")), "Q8_0");
}

}  // namespace
}  // namespace orcd
