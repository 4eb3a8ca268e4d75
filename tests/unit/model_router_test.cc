// Routing a model to plugins, and the model view crossing the ABI.
#include "host/plugins/model_router.h"

#include <gtest/gtest.h>

#include "host/common/status.h"
#include "host/gguf/ggml_type_traits.h"
#include "host/plugins/host_services.h"
#include "host/plugins/model_view.h"
#include "tests/unit/test_files.h"

namespace orcd {
namespace {

using testing::TempDir;

std::filesystem::path TestPlugin(const std::string& name) {
  return std::filesystem::path(ORCD_TEST_PLUGIN_DIR) / ("orcd-plugin-test_" + name + ".so");
}

std::unique_ptr<GgufFile> WriteAndOpen(const GgufWriter& w, const TempDir& dir) {
  w.WriteFile(dir / "m.gguf");
  return GgufFile::Open(dir / "m.gguf");
}

TEST(ModelRouter, RoutesArchitectureAndEveryTensorType) {
  TempDir dir;
  GgufWriter w = testing::SmallModelWriter();
  w.AddTensor("extra", ORCD_TYPE_Q2_K, {256}, std::vector<uint8_t>(84));
  auto file = WriteAndOpen(w, dir);
  PluginRegistry registry(HostServices());
  registry.LoadFile(TestPlugin("good_arch"));
  registry.LoadFile(TestPlugin("good_quant"));
  // Q8_0 is still unserved here: the error names the tensor and the type.
  try {
    RouteModel(registry, *file);
    FAIL() << "Q8_0 has no plugin in this registry";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find(
                  "tensor 'blk.0.w' has type Q8_0 which no plugin serves; available: BF16, F16, "
                  "F32, Q2_K"),
              std::string::npos)
        << e.what();
  }
  // Without the Q8_0 tensor, the route is complete.
  GgufWriter ok;
  ok.SetString("general.architecture", "testarch2");
  ok.AddTensor("a", ORCD_TYPE_F32, {4}, std::vector<uint8_t>(16));
  ok.AddTensor("b", ORCD_TYPE_Q2_K, {256, 2}, std::vector<uint8_t>(168));
  ok.AddTensor("c", ORCD_TYPE_Q2_K, {256}, std::vector<uint8_t>(84));
  TempDir dir2;
  auto file2 = WriteAndOpen(ok, dir2);
  ModelRoute route = RouteModel(registry, *file2);
  EXPECT_EQ(route.architecture, "testarch2");
  EXPECT_EQ(route.arch.plugin->name, "test-arch");
  ASSERT_EQ(route.quant.size(), 1u);
  EXPECT_EQ(route.quant.at(ORCD_TYPE_Q2_K).plugin->name, "test-quant");
  EXPECT_EQ(route.type_mix.at(ORCD_TYPE_Q2_K), 2u);
  EXPECT_EQ(route.type_mix.at(ORCD_TYPE_F32), 1u);
}

TEST(ModelRouter, UnknownArchitectureListsWhatIsAvailable) {
  TempDir dir;
  GgufWriter w;
  w.SetString("general.architecture", "mamba9");
  w.AddTensor("a", ORCD_TYPE_F32, {4}, std::vector<uint8_t>(16));
  auto file = WriteAndOpen(w, dir);
  PluginRegistry registry(HostServices());
  registry.LoadFile(TestPlugin("good_arch"));
  try {
    RouteModel(registry, *file);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(
        std::string(e.what()).find(
            "architecture 'mamba9' is not served by any plugin; available: testarch, testarch2"),
        std::string::npos)
        << e.what();
  }
}

TEST(ModelRouter, MissingArchitectureIsAnInvalidModel) {
  TempDir dir;
  GgufWriter w;
  w.AddTensor("a", ORCD_TYPE_F32, {4}, std::vector<uint8_t>(16));
  auto file = WriteAndOpen(w, dir);
  PluginRegistry registry(HostServices());
  try {
    RouteModel(registry, *file);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kModelInvalid);
    EXPECT_NE(std::string(e.what()).find("no general.architecture"), std::string::npos);
  }
}

TEST(ModelView, ExposesTypedMetadataAndTensors) {
  TempDir dir;
  auto file = WriteAndOpen(testing::SmallModelWriter(), dir);
  orcd_model_view view(*file);
  const orcd_model_view_ops* ops = ModelViewOps();
  uint64_t u = 0;
  EXPECT_EQ(ops->get_u64(&view, "testarch.block_count", &u), 1);
  EXPECT_EQ(u, 2u);
  int64_t i = 0;
  EXPECT_EQ(ops->get_i64(&view, "testarch.signed", &i), 1);
  EXPECT_EQ(i, -7);
  EXPECT_EQ(ops->get_u64(&view, "testarch.signed", &u), 0) << "negative is no u64";
  double f = 0;
  EXPECT_EQ(ops->get_f64(&view, "testarch.rope.freq_base", &f), 1);
  EXPECT_DOUBLE_EQ(f, 10000.0);
  int b = 0;
  EXPECT_EQ(ops->get_bool(&view, "testarch.flag", &b), 1);
  EXPECT_EQ(b, 1);
  const char* s = nullptr;
  EXPECT_EQ(ops->get_string(&view, "general.name", &s), 1);
  EXPECT_STREQ(s, "small");
  EXPECT_EQ(ops->get_string(&view, "nope", &s), 0);
  EXPECT_EQ(ops->array_length(&view, "tokenizer.ggml.tokens"), 4u);
  EXPECT_EQ(ops->tensor_count(&view), 2u);
  orcd_tensor_desc desc{};
  ASSERT_EQ(ops->find_tensor(&view, "blk.0.w", &desc), 1);
  EXPECT_STREQ(desc.name, "blk.0.w");
  EXPECT_EQ(desc.type, ORCD_TYPE_Q8_0);
  EXPECT_EQ(desc.ne[0], 64);
  EXPECT_EQ(desc.ne[1], 3);
  EXPECT_EQ(desc.n_bytes, 204u);
  EXPECT_EQ(ops->tensor_at(&view, 2, &desc), 0);
}

// A C plugin reads the view and answers with an error object: both cross the
// boundary intact.
TEST(ModelView, PluginCompileSeesTheModel) {
  TempDir dir;
  auto file = WriteAndOpen(testing::SmallModelWriter(), dir);
  PluginRegistry registry(HostServices());
  ASSERT_TRUE(registry.LoadFile(TestPlugin("good_arch")));
  auto claim = registry.FindArchitecture("testarch");
  orcd_model_view view(*file);
  orcd_error* e = claim.entry->compile(&view, ModelViewOps(), nullptr, nullptr);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(OrcdErrorCode(e), ORCD_ERR_UNSUPPORTED);
  EXPECT_EQ(OrcdErrorMessage(e), "testarch");
  OrcdErrorPtr owned(e);
}

}  // namespace
}  // namespace orcd
