// Loads the built plugin modules the way the host does (dlopen + the entry
// symbol) and checks what they declare: ABI, kind, the exact set of types with
// ggml's block geometry, and that the ops they hand out compute correctly.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "orcd/plugin.h"
#include "plugin_test_host.h"
#include "quant_test_support.h"

namespace orcd::quant::test {
namespace {

struct Geometry {
  const char* name;
  uint32_t block_elems;
  uint32_t block_bytes;
};

// ggml's block sizes (ggml.c type_traits), written out independently of the
// plugin sources.
const std::map<orcd_ggml_type, Geometry> kQ4Types = {
    {ORCD_TYPE_Q4_0, {"Q4_0", 32, 18}},   {ORCD_TYPE_Q4_1, {"Q4_1", 32, 20}},
    {ORCD_TYPE_Q5_0, {"Q5_0", 32, 22}},   {ORCD_TYPE_Q5_1, {"Q5_1", 32, 24}},
    {ORCD_TYPE_Q8_0, {"Q8_0", 32, 34}},   {ORCD_TYPE_Q4_K, {"Q4_K", 256, 144}},
    {ORCD_TYPE_Q5_K, {"Q5_K", 256, 176}}, {ORCD_TYPE_Q6_K, {"Q6_K", 256, 210}}};
const std::map<orcd_ggml_type, Geometry> kMxfp4Types = {{ORCD_TYPE_MXFP4, {"MXFP4", 32, 17}}};

struct PluginCase {
  const char* name;
  const std::map<orcd_ggml_type, Geometry>* types;
};

class QuantPluginLoad : public testing::TestWithParam<PluginCase> {
 protected:
  void SetUp() override {
    plugin_ = std::make_unique<LoadedPlugin>(GetParam().name);
    ASSERT_TRUE(plugin_->loaded()) << plugin_->path() << ": " << plugin_->error();
    ASSERT_NE(plugin_->entry(), nullptr) << "no " << ORCD_PLUGIN_ENTRY_SYMBOL;
    descriptor_ = plugin_->entry()(&test_host_services());
    ASSERT_NE(descriptor_, nullptr);
  }

  std::unique_ptr<LoadedPlugin> plugin_;
  const orcd_plugin_descriptor* descriptor_ = nullptr;
};

TEST_P(QuantPluginLoad, DescriptorDeclaresAbiKindAndName) {
  EXPECT_EQ(descriptor_->struct_size, sizeof(orcd_plugin_descriptor));
  EXPECT_EQ(descriptor_->abi_major, ORCD_ABI_MAJOR);
  EXPECT_EQ(descriptor_->abi_minor, ORCD_ABI_MINOR);
  EXPECT_EQ(descriptor_->kind, ORCD_PLUGIN_QUANT);
  EXPECT_STREQ(descriptor_->name, GetParam().name);
  ASSERT_NE(descriptor_->version, nullptr);
  EXPECT_STRNE(descriptor_->version, "");
  EXPECT_EQ(descriptor_->architecture, nullptr);
  ASSERT_NE(descriptor_->quant, nullptr);
  EXPECT_EQ(descriptor_->quant->struct_size, sizeof(orcd_quant_plugin));
}

TEST_P(QuantPluginLoad, ServesExactlyItsTypesWithGgmlBlockSizes) {
  const orcd_quant_plugin& q = *descriptor_->quant;
  const auto& expected = *GetParam().types;
  ASSERT_EQ(q.n_types, expected.size());
  std::set<orcd_ggml_type> seen;
  for (uint32_t i = 0; i < q.n_types; ++i) {
    const orcd_quant_type& t = q.types[i];
    EXPECT_EQ(t.struct_size, sizeof(orcd_quant_type));
    const auto it = expected.find(t.type);
    ASSERT_NE(it, expected.end()) << "unexpected type " << t.type;
    EXPECT_TRUE(seen.insert(t.type).second) << "type " << t.type << " listed twice";
    EXPECT_STREQ(t.name, it->second.name);
    EXPECT_EQ(t.block_elems, it->second.block_elems) << t.name;
    EXPECT_EQ(t.block_bytes, it->second.block_bytes) << t.name;
    ASSERT_NE(t.cpu, nullptr) << t.name;
    EXPECT_EQ(t.cpu->struct_size, sizeof(orcd_quant_cpu_ops));
    EXPECT_NE(t.cpu->dequantize_row, nullptr);
    EXPECT_NE(t.cpu->quantize_row, nullptr);
    EXPECT_NE(t.cpu->get_rows, nullptr);
    EXPECT_NE(t.cpu->matmul, nullptr);
#if ORCD_TEST_HAVE_CUDA
    ASSERT_NE(t.cuda, nullptr) << t.name << ": built with CUDA";
    EXPECT_EQ(t.cuda->struct_size, sizeof(orcd_quant_cuda_ops));
    EXPECT_NE(t.cuda->get_rows, nullptr);
    EXPECT_NE(t.cuda->matvec, nullptr);
    EXPECT_NE(t.cuda->matmul, nullptr);
#else
    EXPECT_EQ(t.cuda, nullptr) << t.name << ": built without CUDA";
#endif
  }
}

// The ops the module hands out (its own copy of the kernels, with the variant
// it picked for this CPU) reproduce the fixtures.
TEST_P(QuantPluginLoad, CpuOpsReproduceGgmlFixtures) {
  const orcd_quant_plugin& q = *descriptor_->quant;
  for (uint32_t i = 0; i < q.n_types; ++i) {
    const orcd_quant_type& t = q.types[i];
    const std::optional<Golden> g = load_golden(t.name);
    ASSERT_TRUE(g.has_value());
    std::vector<float> deq(g->deq.size());
    t.cpu->dequantize_row(g->q.data(), deq.data(), g->rows * g->cols);
    for (size_t k = 0; k < deq.size(); ++k) ASSERT_TRUE(same_bits(deq[k], g->deq[k])) << t.name;
    std::vector<uint8_t> blocks(g->q.size());
    t.cpu->quantize_row(g->src.data(), blocks.data(), g->rows * g->cols);
    EXPECT_EQ(blocks, g->q) << t.name;
    std::vector<float> y(static_cast<size_t>(g->rows));
    t.cpu->matmul(g->q.data(), g->rows, g->cols, g->x.data(), 1, y.data(), g->rows);
    for (int64_t r = 0; r < g->rows; ++r) EXPECT_NEAR(y[r], g->y[r], 1e-5 * std::fabs(g->y[r]));
  }
}

// Only the entry point is exported: the kernel library is hidden, so two
// plugins (or the host) linking their own copies never interpose.
TEST_P(QuantPluginLoad, ExportsOnlyTheEntryPoint) {
  EXPECT_EQ(plugin_->symbol("_ZN4orcd5quant16cpu_has_avx2_fmaEv"), nullptr);
  EXPECT_EQ(
      plugin_->symbol(
          "_ZN4orcd5quant18build_quant_pluginEPK18orcd_host_servicesRKNS0_15QuantPluginSpecE"),
      nullptr);
}

// A host of another ABI major gets NULL, with the reason logged.
TEST_P(QuantPluginLoad, RejectsHostOfAnotherMajor) {
  orcd_host_services other = test_host_services();
  other.abi_major = ORCD_ABI_MAJOR + 1;
  logged_lines().clear();
  EXPECT_EQ(plugin_->entry()(&other), nullptr);
  ASSERT_FALSE(logged_lines().empty());
  EXPECT_NE(logged_lines().back().find("ABI"), std::string::npos) << logged_lines().back();
  EXPECT_EQ(plugin_->entry()(nullptr), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Plugins, QuantPluginLoad,
                         testing::Values(PluginCase{"q4", &kQ4Types},
                                         PluginCase{"mxfp4", &kMxfp4Types}),
                         [](const testing::TestParamInfo<PluginCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace orcd::quant::test
