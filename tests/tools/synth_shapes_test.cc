// orcd-synth's real-model shapes against the published files they stand in
// for (counts and sizes read off llama.cpp's load logs of those files): a
// benchmark on a shape that differs from the real model measures the wrong
// thing, so the type mix and the bytes read per token must be the model's.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "host/gguf/ggml_type_traits.h"
#include "orcd/plugin.h"
#include "tools/synth/synth_shapes.h"

namespace orcd::synth {
namespace {

uint64_t TensorBytes(const TensorSpec& t) {
  const GgmlTypeTraits* type = FindGgmlType(t.type);
  EXPECT_NE(type, nullptr) << t.name;
  uint64_t rows = 1;
  for (size_t i = 1; i < t.ne.size(); ++i) rows *= static_cast<uint64_t>(t.ne[i]);
  return *GgmlRowBytes(*type, static_cast<uint64_t>(t.ne[0])) * rows;
}

// ggml-org/gpt-oss-20b-GGUF (MXFP4): "type f32: 289, q8_0: 98, mxfp4: 72
// tensors", file size 11.27 GiB of which ~13 MB are the tokenizer.
TEST(SynthShapes, GptOss20bMatchesThePublishedFile) {
  const std::optional<ModelShape> s = MakeShape("gpt-oss-20b", 0);
  ASSERT_TRUE(s.has_value());
  std::map<uint32_t, int> count;
  uint64_t bytes = 0;
  for (const TensorSpec& t : s->tensors) {
    ++count[t.type];
    bytes += TensorBytes(t);
  }
  EXPECT_EQ(s->tensors.size(), 459u);
  EXPECT_EQ(count[ORCD_TYPE_F32], 289);
  EXPECT_EQ(count[ORCD_TYPE_Q8_0], 98);
  EXPECT_EQ(count[ORCD_TYPE_MXFP4], 72);
  const double gib = static_cast<double>(bytes) / (1ull << 30);
  EXPECT_NEAR(gib, 11.27 - 0.013, 0.01) << bytes << " bytes";
  EXPECT_EQ(s->n_vocab, 201088u);
  EXPECT_EQ(s->n_expert, 32u);
  EXPECT_EQ(s->n_expert_used, 4u);
}

// The Q4_K_M shapes of the families added later, against the size column
// llama-bench prints for the published files (GiB of tensor data): Qwen3-8B
// 4.68, Qwen3-30B-A3B 17.28, Gemma-3-4B-it 2.31, Llama-3.1-8B-Instruct 4.58.
// The mix is llama-quantize's rule (measured within 0.1 %); within 1 %.
TEST(SynthShapes, LaterFamiliesMatchThePublishedSizes) {
  const std::map<std::string, double> published = {
      {"qwen3-8b", 4.68}, {"qwen3-30b-a3b", 17.28}, {"gemma-3-4b", 2.31}, {"llama-3.1-8b", 4.58}};
  for (const auto& [name, gib] : published) {
    const std::optional<ModelShape> s = MakeShape(name, 0);
    ASSERT_TRUE(s.has_value()) << name;
    uint64_t bytes = 0;
    for (const TensorSpec& t : s->tensors) bytes += TensorBytes(t);
    const double ours = static_cast<double>(bytes) / (1ull << 30);
    std::printf("%s: %.3f GiB (published %.2f)\n", name.c_str(), ours, gib);
    EXPECT_NEAR(ours, gib, 0.01 * gib) << name;
  }
}

// Every matrix's rows fit its type's blocks, and the Q4_K_M shapes use only
// types the quant plugins serve.
TEST(SynthShapes, EveryShapeIsWellFormed) {
  for (const char* name : {"smollm3-tiny", "qwen2-0.5b", "phi3-mini", "gpt-oss-20b", "qwen3-8b",
                           "qwen3-30b-a3b", "gemma-3-4b", "llama-3.1-8b"}) {
    const std::optional<ModelShape> s = MakeShape(name, 0);
    ASSERT_TRUE(s.has_value()) << name;
    for (const TensorSpec& t : s->tensors) {
      const GgmlTypeTraits* type = FindGgmlType(t.type);
      ASSERT_NE(type, nullptr) << name << " " << t.name;
      EXPECT_EQ(t.ne[0] % type->block_elems, 0) << name << " " << t.name;
    }
  }
  EXPECT_FALSE(MakeShape("gpt-9", 0).has_value());
}

}  // namespace
}  // namespace orcd::synth
