// The GGUF reader on valid files: every metadata type, nested arrays,
// alignment, tensor infos and data placement.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <future>

#include "host/common/status.h"
#include "host/gguf/ggml_type_traits.h"
#include "host/gguf/gguf_file.h"
#include "tests/unit/test_files.h"

namespace orcd {
namespace {

using testing::SmallModelWriter;
using testing::TempDir;

TEST(GgufReader, ReadsEveryScalarTypeAndArray) {
  TempDir dir;
  SmallModelWriter().WriteFile(dir / "m.gguf");
  auto f = GgufFile::Open(dir / "m.gguf");
  EXPECT_EQ(f->version(), 3u);
  EXPECT_EQ(f->architecture(), "testarch");
  EXPECT_EQ(f->GetString("general.name"), "small");
  EXPECT_EQ(f->GetU64("testarch.block_count"), 2u);
  EXPECT_EQ(f->GetI64("testarch.signed"), -7);
  EXPECT_EQ(f->GetU64("testarch.signed"), std::nullopt) << "negative value is no u64";
  EXPECT_EQ(f->GetU64("testarch.big"), 1ull << 40);
  EXPECT_FLOAT_EQ(*f->GetF64("testarch.rope.freq_base"), 10000.0);
  EXPECT_EQ(f->GetF64("testarch.block_count"), 2.0) << "integers widen to float";
  EXPECT_EQ(f->GetBool("testarch.flag"), true);
  EXPECT_EQ(f->GetString("testarch.flag"), std::nullopt) << "no cross-type string reads";
  EXPECT_EQ(f->GetU64("missing.key"), std::nullopt);

  auto tokens = f->GetStringArray("tokenizer.ggml.tokens");
  ASSERT_TRUE(tokens.has_value());
  ASSERT_EQ(tokens->size(), 4u);
  EXPECT_EQ((*tokens)[2], "<0x0A>");
  EXPECT_EQ((*tokens)[3], "\xe4\xbd\xa0");
  auto scores = f->GetF32Array("tokenizer.ggml.scores");
  ASSERT_TRUE(scores.has_value());
  EXPECT_EQ(*scores, (std::vector<float>{0.5f, -1.0f, 0.0f, 2.0f}));
  EXPECT_EQ(f->GetStringArray("tokenizer.ggml.scores"), std::nullopt);
}

TEST(GgufReader, ReadsNestedArrays) {
  TempDir dir;
  SmallModelWriter().WriteFile(dir / "m.gguf");
  auto f = GgufFile::Open(dir / "m.gguf");
  const GgufValue* nested = f->Find("testarch.nested");
  ASSERT_NE(nested, nullptr);
  ASSERT_EQ(nested->type, GgufType::kArray);
  ASSERT_EQ(nested->element_type, GgufType::kArray);
  ASSERT_EQ(nested->items.size(), 2u);
  ASSERT_EQ(nested->items[1].items.size(), 3u);
  EXPECT_EQ(nested->items[1].element_type, GgufType::kUint16);
  EXPECT_EQ(nested->items[1].items[2].AsU64(), 12u);
}

TEST(GgufReader, TensorInfosAndDataPlacement) {
  TempDir dir;
  SmallModelWriter().WriteFile(dir / "m.gguf");
  auto f = GgufFile::Open(dir / "m.gguf");
  ASSERT_EQ(f->tensors().size(), 2u);
  EXPECT_EQ(f->data_offset() % 32, 0u);
  const GgufTensorInfo* norm = f->FindTensor("norm.weight");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->type, 0u);
  EXPECT_EQ(norm->n_dims, 2u);
  EXPECT_EQ(norm->ne[0], 8);
  EXPECT_EQ(norm->ne[1], 2);
  EXPECT_EQ(norm->n_bytes, 64u);
  EXPECT_EQ(norm->ShapeString(), "8x2");
  ASSERT_NE(norm->data, nullptr);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(norm->data[i], i) << "byte " << i;
  const GgufTensorInfo* q = f->FindTensor("blk.0.w");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->n_bytes, 3u * 2 * 34) << "Q8_0: 34 bytes per 32 elements";
  EXPECT_EQ(q->offset % 32, 0u);
  EXPECT_EQ(q->data[0], 0x11);
  EXPECT_EQ(q->data[q->n_bytes - 1], 0x11);
  EXPECT_EQ(f->FindTensor("nope"), nullptr);
}

TEST(GgufReader, HonoursCustomAlignmentAndVersion2) {
  TempDir dir;
  GgufWriter w = SmallModelWriter();
  w.SetU32("general.alignment", 256);
  w.set_version(2);
  w.WriteFile(dir / "m.gguf");
  auto f = GgufFile::Open(dir / "m.gguf");
  EXPECT_EQ(f->version(), 2u);
  EXPECT_EQ(f->alignment(), 256u);
  EXPECT_EQ(f->data_offset() % 256, 0u);
  EXPECT_EQ(f->FindTensor("blk.0.w")->offset % 256, 0u);
  EXPECT_EQ(f->FindTensor("norm.weight")->data[5], 5);
}

TEST(GgufReader, VocabOnlyFileWithoutDataSection) {
  TempDir dir;
  GgufWriter w;
  w.SetString("general.architecture", "llama");
  w.SetStringArray("tokenizer.ggml.tokens", {"x"});
  w.WriteFile(dir / "v.gguf");
  auto f = GgufFile::Open(dir / "v.gguf");
  EXPECT_TRUE(f->tensors().empty());
  EXPECT_EQ(f->GetStringArray("tokenizer.ggml.tokens")->size(), 1u);
}

TEST(GgufReader, MissingFileIsNotFound) {
  try {
    GgufFile::Open("/nonexistent/dir/model.gguf");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/model.gguf"), std::string::npos);
  }
}

// A FIFO (or a device) as the model path: refused at once, never opened
// (opening a FIFO for reading blocks until a writer appears).
TEST(GgufReader, NonRegularFileIsRefusedWithoutBlocking) {
  TempDir dir;
  const std::filesystem::path fifo = dir.path() / "model.gguf";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto opened = std::async(std::launch::async, [&] {
    try {
      GgufFile::Open(fifo);
      return std::string("accepted");
    } catch (const Error& e) {
      return std::string(e.what());
    }
  });
  if (opened.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // releases the reader
    opened.wait();
    ::close(writer);
    FAIL() << "blocked opening a FIFO";
  }
  EXPECT_NE(opened.get().find("not a regular file"), std::string::npos);
  EXPECT_THROW(GgufFile::Open(dir.path()), Error) << "a directory";
}

TEST(GgmlTypeTraits, MatchesGgmlGeometry) {
  struct Row {
    const char* name;
    uint32_t id, elems, bytes;
  };
  // From ggml.c's type_traits (block_size, type_size).
  const Row rows[] = {{"F32", 0, 1, 4},       {"F16", 1, 1, 2},       {"Q4_0", 2, 32, 18},
                      {"Q4_1", 3, 32, 20},    {"Q5_0", 6, 32, 22},    {"Q5_1", 7, 32, 24},
                      {"Q8_0", 8, 32, 34},    {"Q2_K", 10, 256, 84},  {"Q3_K", 11, 256, 110},
                      {"Q4_K", 12, 256, 144}, {"Q5_K", 13, 256, 176}, {"Q6_K", 14, 256, 210},
                      {"BF16", 30, 1, 2},     {"MXFP4", 39, 32, 17}};
  for (const Row& r : rows) {
    const GgmlTypeTraits* t = FindGgmlType(r.id);
    ASSERT_NE(t, nullptr) << r.name;
    EXPECT_EQ(t->name, r.name);
    EXPECT_EQ(t->block_elems, r.elems) << r.name;
    EXPECT_EQ(t->block_bytes, r.bytes) << r.name;
    EXPECT_EQ(FindGgmlTypeByName(r.name), t);
  }
  EXPECT_EQ(FindGgmlType(4), nullptr) << "removed Q4_2";
  EXPECT_EQ(GgmlTypeName(77), "type#77");
  EXPECT_EQ(GgmlRowBytes(*FindGgmlType(12), 896), std::nullopt) << "896 is not a multiple of 256";
  EXPECT_EQ(GgmlRowBytes(*FindGgmlType(8), 896), 896u / 32 * 34);
}

}  // namespace
}  // namespace orcd
