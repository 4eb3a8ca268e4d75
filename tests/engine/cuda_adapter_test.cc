// Every CUDA adapter against the CPU adapter, one instruction at a time, on
// shapes the fixture models do not have: widths that are not multiples of 32,
// one and many tokens, GQA 3:1, head_dim 40, partial rotary dims with YaRN and
// frequency factors, sliding windows shorter than the batch (the ring wraps
// inside one run), sinks, softcap, f16 and f32 caches, split matmul outputs
// with bias, MoE with both gatings, biases and odd expert widths.
//
// Built twice: here on the emulated device (CI), and in tests/gpu on the real
// GPU (ORCD_ADAPTER_TEST_ON_GPU), where it skips without one.
//
// Bound: max |cuda - cpu| <= 2e-5 x max(1, max |cpu|). Both sides compute in
// f32 from the same inputs; only summation order and exp/tanh/cos ulps differ
// (measured <= 2e-7 on the emulated device). A wrong index, mask, sign or
// scale is >= 1e-2 (a flipped sine in ROPE: 1.6).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "adapter_harness.h"
#include "orcd/cpp/half.h"

#if ORCD_ADAPTER_TEST_ON_GPU
#include "device_buffer.h"
#endif

namespace orcd::testing {
namespace {

constexpr double kBound = 2e-5;

std::shared_ptr<engine::cuda::DeviceRuntime> MakeRuntime() {
#if ORCD_ADAPTER_TEST_ON_GPU
  return engine::cuda::CreateCudaRuntime(0, nullptr);
#else
  return engine::cuda::CreateEmulatedRuntime(256ull << 20);
#endif
}

void ExpectSame(const OpOutputs& o, const std::string& what, double bound = kBound) {
  ASSERT_EQ(o.cpu.size(), o.cuda.size());
  for (size_t i = 0; i < o.cpu.size(); ++i) {
    ASSERT_FALSE(o.cpu[i].empty()) << what;
    const double d = MaxRelDiff(o.cuda[i], o.cpu[i]);
    std::printf("%s, output %zu: max rel diff %.2e over %zu values\n", what.c_str(), i, d,
                o.cpu[i].size());
    EXPECT_LE(d, bound) << what << ", output " << i;
  }
}

class CudaAdapter : public ::testing::Test {
 protected:
  void SetUp() override {
#if ORCD_ADAPTER_TEST_ON_GPU
    ORCD_SKIP_WITHOUT_GPU();
#endif
  }
};

std::vector<float> Rounded16(std::vector<float> v) {
  for (float& x : v) x = fp16_to_f32(f32_to_fp16(x));
  return v;
}

OpSpec Elementwise(engine::Opcode op, int n_in, int64_t width) {
  OpSpec s;
  s.opcode = op;
  s.in_widths.assign(static_cast<size_t>(n_in), width);
  s.out_widths = {width};
  return s;
}

TEST_F(CudaAdapter, AddMulGeluSwigluGeglu) {
  for (int64_t n : {1, 5}) {
    for (engine::Opcode op : {ORCD_OP_ADD, ORCD_OP_MUL}) {
      AdapterHarness h(MakeRuntime(), Elementwise(op, 2, 77));
      ExpectSame(h.Run(0, n, {RandomValues(n * 77, 1), RandomValues(n * 77, 2)}),
                 engine::OpcodeName(op));
    }
    AdapterHarness gelu(MakeRuntime(), Elementwise(ORCD_OP_GELU, 1, 77));
    ExpectSame(gelu.Run(0, n, {RandomValues(n * 77, 3, 12.0f)}), "gelu (past +-10 too)");
    AdapterHarness swiglu(MakeRuntime(), Elementwise(ORCD_OP_SWIGLU, 2, 37));
    ExpectSame(swiglu.Run(0, n, {RandomValues(n * 37, 4, 6.0f), RandomValues(n * 37, 5)}),
               "swiglu");
    OpSpec fused = Elementwise(ORCD_OP_SWIGLU, 1, 74);
    fused.out_widths = {37};
    AdapterHarness swiglu_fused(MakeRuntime(), fused);
    ExpectSame(swiglu_fused.Run(0, n, {RandomValues(n * 74, 6, 6.0f)}), "swiglu gate|up");
    AdapterHarness geglu(MakeRuntime(), Elementwise(ORCD_OP_GEGLU, 2, 37));
    ExpectSame(geglu.Run(0, n, {RandomValues(n * 37, 7, 12.0f), RandomValues(n * 37, 8)}),
               "geglu (past +-10 too)");
    OpSpec geglu_fused_spec = Elementwise(ORCD_OP_GEGLU, 1, 74);
    geglu_fused_spec.out_widths = {37};
    AdapterHarness geglu_fused(MakeRuntime(), geglu_fused_spec);
    ExpectSame(geglu_fused.Run(0, n, {RandomValues(n * 74, 9, 6.0f)}), "geglu gate|up");
  }
}

TEST_F(CudaAdapter, RmsNormWholeRowsAndPerHeadGroups) {
  for (uint32_t group : {0u, 24u}) {
    OpSpec s = Elementwise(ORCD_OP_RMS_NORM, 1, 96);
    s.params = ParamBytes(orcd_op_norm_params{1e-6f, group});
    const int64_t g = group ? group : 96;
    s.weights = {{0, {g}, RandomValues(static_cast<size_t>(g), 7)}};
    AdapterHarness h(MakeRuntime(), s);
    ExpectSame(h.Run(0, 3, {RandomValues(3 * 96, 8, 3.0f)}), "rms_norm group " + std::to_string(g));
  }
  OpSpec plain = Elementwise(ORCD_OP_RMS_NORM, 1, 77);
  plain.params = ParamBytes(orcd_op_norm_params{1e-5f, 0});
  AdapterHarness h(MakeRuntime(), plain);
  ExpectSame(h.Run(0, 2, {RandomValues(2 * 77, 9)}), "rms_norm without gamma");
}

TEST_F(CudaAdapter, LayerNorm) {
  OpSpec s = Elementwise(ORCD_OP_LAYER_NORM, 1, 77);
  s.params = ParamBytes(orcd_op_norm_params{1e-5f, 0});
  s.weights = {{0, {77}, RandomValues(77, 10)}, {0, {77}, RandomValues(77, 11)}};
  AdapterHarness h(MakeRuntime(), s);
  std::vector<float> x = RandomValues(4 * 77, 12, 2.0f);
  for (float& v : x) v += 5.0f;  // a large mean: the variance must be about it
  ExpectSame(h.Run(0, 4, {x}), "layer_norm");
}

TEST_F(CudaAdapter, RopeNormalNeoxPartialYarnFreqFactors) {
  for (uint32_t mode : {uint32_t{ORCD_ROPE_NORMAL}, uint32_t{ORCD_ROPE_NEOX}}) {
    for (bool yarn : {false, true}) {
      OpSpec s = Elementwise(ORCD_OP_ROPE, 1, 3 * 40);
      orcd_op_rope_params p{};
      p.mode = mode;
      p.head_dim = 40;
      p.n_rot = 24;
      p.freq_base = 10000.0f;
      p.freq_scale = yarn ? 0.25f : 1.0f;
      p.ext_factor = yarn ? 1.0f : 0.0f;
      p.attn_factor = 1.0f;
      p.beta_fast = 32.0f;
      p.beta_slow = 1.0f;
      p.n_ctx_orig = 64;
      s.params = ParamBytes(p);
      if (yarn) {
        std::vector<float> ff = RandomValues(12, 13, 0.5f);
        for (float& f : ff) f += 1.5f;
        s.weights = {{0, {12}, ff}};
      }
      s.context_length = 512;
      AdapterHarness h(MakeRuntime(), s);
      const std::string what = std::string(mode ? "neox" : "normal") + (yarn ? " yarn" : "");
      ExpectSame(h.Run(300, 7, {RandomValues(7 * 120, 14)}), "rope " + what);
      ExpectSame(h.Run(307, 1, {RandomValues(120, 15)}), "rope one token " + what);
    }
  }
}

struct AttentionCase {
  uint32_t window;
  bool sinks;
  float softcap;
  engine::KvType kv;
};

struct AttentionShape {
  int64_t heads, kv_heads, dim;
  int64_t context;  // the KV cache's length (row capacity: half of it)
};

const char* KvName(engine::KvType kv) {
  return kv == engine::KvType::kF16 ? "f16" : kv == engine::KvType::kF32 ? "f32" : "q8_0";
}

// ATTENTION of `shape` in case c through steps of `runs` rows, one after the
// other on one sequence, each step's outputs against the CPU adapter's.
void ExpectAttentionRuns(const AttentionCase& c, const AttentionShape& shape,
                         std::initializer_list<int64_t> runs, uint32_t seed) {
  const int64_t heads = shape.heads, kv_heads = shape.kv_heads, dim = shape.dim;
  OpSpec s;
  s.opcode = ORCD_OP_ATTENTION;
  s.in_widths = {heads * dim, kv_heads * dim, kv_heads * dim};
  s.out_widths = {heads * dim};
  s.params = ParamBytes(orcd_op_attention_params{
      3, static_cast<uint32_t>(heads), static_cast<uint32_t>(kv_heads), static_cast<uint32_t>(dim),
      1.0f / std::sqrt(static_cast<float>(dim)), c.softcap});
  s.kv_states = {{3, static_cast<uint32_t>(kv_heads), static_cast<uint32_t>(dim), c.window}};
  s.kv_type = c.kv;
  s.context_length = shape.context;
  s.row_capacity = shape.context / 2;
  if (c.sinks) s.weights = {{0, {heads}, RandomValues(static_cast<size_t>(heads), seed, 2.0f)}};
  AdapterHarness h(MakeRuntime(), s);
  const std::string what = "window " + std::to_string(c.window) + (c.sinks ? " sinks" : "") +
                           " softcap " + std::to_string(c.softcap) + " " + KvName(c.kv);
  int64_t pos = 0;
  for (int64_t n : runs) {
    ++seed;
    auto run =
        h.Run(pos, n,
              {RandomValues(n * heads * dim, seed), RandomValues(n * kv_heads * dim, seed + 100),
               RandomValues(n * kv_heads * dim, seed + 200)});
    ExpectSame(run, what + " at " + std::to_string(pos) + "+" + std::to_string(n));
    pos += n;
  }
}

TEST_F(CudaAdapter, AttentionGqaWindowsSinksSoftcapCaches) {
  for (const AttentionCase c : {AttentionCase{0, false, 0.0f, engine::KvType::kF16},
                                AttentionCase{5, true, 0.0f, engine::KvType::kF16},
                                AttentionCase{5, false, 30.0f, engine::KvType::kF32},
                                AttentionCase{0, true, 0.0f, engine::KvType::kF32}}) {
    // A batch longer than the window (the ring wraps inside one run), then decodes.
    ExpectAttentionRuns(c, {6, 2, 40, 64}, {13, 1, 1, 9, 1}, 100);
  }
}

// Prompt rows share a CTA eight at a time and every layer reads keys in
// 32-position tiles (decode rows in their split-KV parts): spans of several
// tiles, windows wider than a tile, tiles a query's window only partly covers,
// head_dim 64 (q8_0 caches need whole 32-value blocks) and a run that starts
// mid-tile after decodes.
TEST_F(CudaAdapter, AttentionAcrossKeyTilesWithEveryCacheType) {
  for (const AttentionCase c : {AttentionCase{0, false, 0.0f, engine::KvType::kQ8_0},
                                AttentionCase{40, true, 0.0f, engine::KvType::kQ8_0},
                                AttentionCase{40, false, 20.0f, engine::KvType::kF16},
                                AttentionCase{0, true, 0.0f, engine::KvType::kF32}}) {
    ExpectAttentionRuns(c, {4, 2, 64, 160}, {45, 1, 1, 37, 1}, 200);
  }
}

TEST_F(CudaAdapter, MatmulSplitOutputsBiasOneAndManyTokens) {
  for (uint32_t type : {0u, 1u}) {
    OpSpec s;
    s.opcode = ORCD_OP_MATMUL;
    s.in_widths = {77};
    s.out_widths = {20, 25};
    orcd_op_matmul_params p{};
    p.output_rows[0] = 20;
    p.output_rows[1] = 25;
    s.params = ParamBytes(p);
    std::vector<float> w = RandomValues(77 * 45, 17);
    if (type == 1) w = Rounded16(w);
    s.weights = {{type, {77, 45}, w}, {0, {45}, RandomValues(45, 18)}};
    AdapterHarness h(MakeRuntime(), s);
    for (int64_t n : {1, 6}) {
      // Many tokens go to the GEMM, which rounds activations to the weight's
      // 16 bits: inputs already so rounded keep the comparison exact.
      std::vector<float> x = RandomValues(n * 77, 19);
      if (type == 1) x = Rounded16(x);
      ExpectSame(h.Run(0, n, {x}),
                 std::string(type ? "F16" : "F32") + " matmul n " + std::to_string(n));
    }
  }
}

TEST_F(CudaAdapter, EmbeddingAndLearnedPositions) {
  OpSpec e;
  e.opcode = ORCD_OP_EMBEDDING;
  e.in_widths = {0};
  e.out_widths = {77};
  e.weights = {{1, {77, 50}, Rounded16(RandomValues(77 * 50, 20))}};
  AdapterHarness emb(MakeRuntime(), e);
  ExpectSame(emb.Run(0, 4, {}, {3, 49, 0, 3}), "F16 embedding");
  orcd_op_embedding_params scale{};
  scale.scale = 8.77496f;  // sqrt(77), as Gemma scales its embeddings
  e.params.resize(sizeof scale);
  std::memcpy(e.params.data(), &scale, sizeof scale);
  AdapterHarness scaled(MakeRuntime(), e);
  const OpOutputs o = scaled.Run(0, 3, {}, {49, 0, 7});
  ExpectSame(o, "F16 embedding x sqrt(77)");
  EXPECT_EQ(o.cpu[0][77], emb.Run(0, 1, {}, {0}).cpu[0][0] * scale.scale) << "row 0, scaled";

  OpSpec p;
  p.opcode = ORCD_OP_POSITION_EMBEDDING;
  p.out_widths = {77};
  p.weights = {{0, {77, 40}, RandomValues(77 * 40, 21)}};
  AdapterHarness pos(MakeRuntime(), p);
  ExpectSame(pos.Run(10, 4, {}), "position embedding at 10..13");
  ExpectSame(pos.Run(39, 1, {}), "the last learned position");
}

TEST_F(CudaAdapter, MoeBothGatingsBiasesOddWidths) {
  constexpr int64_t kD = 40, kF = 37, kE = 5;
  for (uint32_t gating :
       {uint32_t{ORCD_MOE_GATING_SOFTMAX_TOPK}, uint32_t{ORCD_MOE_GATING_SOFTMAX}}) {
    OpSpec s;
    s.opcode = ORCD_OP_MOE;
    s.in_widths = {kD, kE};
    s.out_widths = {kD};
    orcd_op_moe_params p{};
    p.n_expert = kE;
    p.n_expert_used = 2;
    p.gating = gating;
    p.activation =
        gating == ORCD_MOE_GATING_SOFTMAX_TOPK ? ORCD_MOE_ACT_SWIGLU_OAI : ORCD_MOE_ACT_SWIGLU;
    p.normalize_weights = 1;
    p.alpha = 1.702f;
    p.limit = 7.0f;
    s.params = ParamBytes(p);
    s.weights = {{1, {kD, kF, kE}, Rounded16(RandomValues(kD * kF * kE, 22))},
                 {1, {kD, kF, kE}, Rounded16(RandomValues(kD * kF * kE, 23))},
                 {1, {kF, kD, kE}, Rounded16(RandomValues(kF * kD * kE, 24))}};
    if (gating == ORCD_MOE_GATING_SOFTMAX_TOPK) {  // gpt-oss: biases
      s.weights.push_back({0, {kF, kE}, RandomValues(kF * kE, 25)});
      s.weights.push_back({0, {kF, kE}, RandomValues(kF * kE, 26)});
      s.weights.push_back({0, {kD, kE}, RandomValues(kD * kE, 27)});
    }
    AdapterHarness h(MakeRuntime(), s);
    for (int64_t n : {1, 4}) {
      // Prompt rows (n 4) group their pairs by expert for the GEMM, which
      // takes 16-bit weights' inputs in 16 bits (as llama.cpp's cuBLAS path):
      // the activation between up and down is rounded to f16 there (2^-11
      // relative per value, a few of them summed), the CPU keeps it in f32.
      ExpectSame(h.Run(0, n, {RandomValues(n * kD, 28, 3.0f), RandomValues(n * kE, 29, 4.0f)}),
                 "moe gating " + std::to_string(gating) + " n " + std::to_string(n),
                 n == 1 ? kBound : 2e-3);
    }
  }
}

// Greedy's argmax on the device: the lowest index of the largest value,
// whatever slice of the partial reduction holds it, for lengths that leave
// the last slice short or give fewer slices than the maximum, a tie across
// slices, the maximum last, all values equal, and -inf throughout.
TEST_F(CudaAdapter, ArgmaxIsTheLowestIndexOfTheLargest) {
  const auto runtime = MakeRuntime();
  constexpr int64_t kLargest = 151937;  // Qwen2.5's vocabulary plus one: a short last slice
  engine::cuda::DeviceBuffer x(*runtime, kLargest * 4), out(*runtime, 4);
  engine::cuda::DeviceBuffer part_values(*runtime, engine::cuda::kArgmaxPartsMax * 4);
  engine::cuda::DeviceBuffer part_ids(*runtime, engine::cuda::kArgmaxPartsMax * 4);
  const engine::cuda::ArgmaxScratch scratch{part_values.get<float>(), part_ids.get<int32_t>()};
  uint32_t state = 12345;
  const auto random_value = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f * 20.0f - 10.0f;
  };
  struct Case {
    const char* what;
    int64_t n;
    std::vector<std::pair<int64_t, float>> planted;
    float fill;  // NaN: random values
  };
  const float kRandom = NAN;
  const std::vector<Case> cases = {
      {"one value", 1, {}, kRandom},
      {"fewer values than slices", 5, {{3, 50.0f}}, kRandom},
      {"a tie across slices", kLargest, {{140000, 50.0f}, {1200, 50.0f}, {90000, 50.0f}}, kRandom},
      {"the largest last", kLargest, {{kLargest - 1, 50.0f}}, kRandom},
      {"odd length, largest first", 4099, {{0, 50.0f}}, kRandom},
      {"all equal", 1000, {}, 1.5f},
      {"all -inf", 300, {}, -INFINITY},
  };
  for (const Case& c : cases) {
    std::vector<float> host(static_cast<size_t>(c.n));
    for (float& v : host) v = std::isnan(c.fill) ? random_value() : c.fill;
    for (const auto& [i, v] : c.planted) host[static_cast<size_t>(i)] = v;
    int32_t expected = 0;
    for (int64_t i = 1; i < c.n; ++i) {
      if (host[static_cast<size_t>(i)] > host[static_cast<size_t>(expected)])
        expected = static_cast<int32_t>(i);
    }
    runtime->CopyToDevice(x.get(), host.data(), host.size() * 4);
    ASSERT_EQ(runtime->kernels().argmax(x.get<float>(), c.n, scratch, out.get<int32_t>(),
                                        runtime->stream()),
              0)
        << c.what;
    int32_t got = -1;
    runtime->CopyToHost(&got, out.get(), 4);
    EXPECT_EQ(got, expected) << c.what;
  }
}

}  // namespace
}  // namespace orcd::testing
