// The lowering step (host/engine/lowering.h): which sequences it fuses on the
// CUDA backend's table and which it must leave alone (a register read in
// between, per-head norms, in-place norms, different rope parameters), that
// the CPU table gets the plan as written, that plugins cannot emit the
// host's lowered opcodes, and, end to end on the emulated device, that the
// fused plan gives the unfused plan's logits bit for bit with one launch
// fewer per fusion in the recorded decode step.
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "engine_test_support.h"
#include "golden.h"
#include "host/common/status.h"
#include "host/engine/cpu/cpu_adapters.h"
#include "host/engine/cuda/cuda_adapters.h"
#include "host/engine/lowered_ops.h"
#include "host/engine/lowering.h"
#include "host/engine/plan_builder.h"
#include "host/gguf/gguf_file.h"

namespace orcd::testing {
namespace {

using engine::ExecutionPlan;
using engine::LoweringReport;
using engine::Phase;
using engine::PlanInstruction;

template <class P>
std::vector<uint8_t> Bytes(const P& p) {
  const auto* b = reinterpret_cast<const uint8_t*>(&p);
  return {b, b + sizeof p};
}

PlanInstruction Insn(uint32_t op, std::vector<int32_t> in, std::vector<int32_t> out,
                     std::vector<std::string> weights = {}, std::vector<uint8_t> params = {}) {
  return PlanInstruction{op, std::move(in), std::move(out), std::move(weights), std::move(params)};
}

std::vector<uint8_t> Norm(uint32_t group = 0) { return Bytes(orcd_op_norm_params{1e-6f, group}); }
std::vector<uint8_t> Rope(uint32_t n_rot = 64) {
  orcd_op_rope_params p{};
  p.mode = ORCD_ROPE_NEOX;
  p.head_dim = 64;
  p.n_rot = n_rot;
  p.freq_base = 1e6f;
  p.freq_scale = 1.0f;
  return Bytes(p);
}

std::vector<uint8_t> Attention() {
  orcd_op_attention_params p{};
  p.n_head = 14;
  p.n_head_kv = 2;
  p.head_dim = 64;
  p.scale = 0.125f;
  return Bytes(p);
}

// One Qwen2-style layer and the output head, as the SDK's blocks emit them.
std::vector<PlanInstruction> QwenLayer() {
  return {
      Insn(ORCD_OP_EMBEDDING, {ORCD_REG_TOKENS}, {1}, {"token_embd"}),
      Insn(ORCD_OP_RMS_NORM, {1}, {2}, {"attn_norm"}, Norm()),
      Insn(ORCD_OP_MATMUL, {2}, {3}, {"wq", "bq"}),
      Insn(ORCD_OP_MATMUL, {2}, {4}, {"wk", "bk"}),
      Insn(ORCD_OP_MATMUL, {2}, {5}, {"wv", "bv"}),
      Insn(ORCD_OP_ROPE, {3}, {3}, {}, Rope()),
      Insn(ORCD_OP_ROPE, {4}, {4}, {}, Rope()),
      Insn(ORCD_OP_ATTENTION, {3, 4, 5}, {6}, {}, Attention()),
      Insn(ORCD_OP_MATMUL, {6}, {7}, {"wo"}),
      Insn(ORCD_OP_ADD, {1, 7}, {1}),
      Insn(ORCD_OP_RMS_NORM, {1}, {8}, {"ffn_norm"}, Norm()),
      Insn(ORCD_OP_MATMUL, {8}, {9}, {"gate"}),
      Insn(ORCD_OP_MATMUL, {8}, {10}, {"up"}),
      Insn(ORCD_OP_SWIGLU, {9, 10}, {11}),
      Insn(ORCD_OP_MATMUL, {11}, {12}, {"down"}),
      Insn(ORCD_OP_ADD, {1, 12}, {1}),
      Insn(ORCD_OP_RMS_NORM, {1}, {13}, {"output_norm"}, Norm()),
      Insn(ORCD_OP_LOGITS, {13}, {14}, {"output"}),
  };
}

ExecutionPlan PlanOf(std::vector<PlanInstruction> insns) {
  ExecutionPlan plan;
  for (engine::PhasePlan& phase : plan.phases) {
    phase.instructions = insns;
    phase.logits_register = 14;
  }
  return plan;
}

std::vector<std::string> Opcodes(const ExecutionPlan& plan, Phase phase) {
  std::vector<std::string> names;
  for (const PlanInstruction& insn : plan.phase(phase).instructions)
    names.push_back(engine::OpcodeName(insn.opcode));
  return names;
}

TEST(Lowering, FusesAQwenLayerOnTheCudaTable) {
  const engine::AdapterTable cuda = engine::cuda::MakeCudaAdapterTable();
  LoweringReport report;
  const ExecutionPlan lowered = engine::LowerPlan(PlanOf(QwenLayer()), cuda, &report);
  // clang-format off
  const std::vector<std::string> expected = {
      "EMBEDDING", "RMS_NORM",
      "MATMUL", "MATMUL_SHARED_INPUT", "MATMUL_SHARED_INPUT",  // Q, K, V
      "ROPE_FUSED",
      "ATTENTION_FUSED",      // adds V's bias, rounds its output
      "MATMUL_SHARED_INPUT",  // O
      "ADD_RMS_NORM",         // rounds its output
      "MATMUL_SHARED_INPUT", "MATMUL_SHARED_INPUT",  // gate, up
      "SWIGLU_Q8",
      "MATMUL_SHARED_INPUT",  // down
      "ADD_RMS_NORM", "LOGITS"};
  // Decode (one token) also runs Q, K and V as one launch, and gate, up and
  // SWIGLU as one matvec; the down MATMUL then rounds its own input.
  std::vector<std::string> expected_decode = expected;
  expected_decode.erase(expected_decode.begin() + 9, expected_decode.begin() + 13);
  expected_decode.insert(expected_decode.begin() + 9, {"MATMUL_GLU", "MATMUL"});
  expected_decode.erase(expected_decode.begin() + 2, expected_decode.begin() + 5);
  expected_decode.insert(expected_decode.begin() + 2, "MATMUL_MULTI");
  // clang-format on
  for (Phase phase : {Phase::kPrefill, Phase::kDecode}) {
    const bool decode = phase == Phase::kDecode;
    EXPECT_EQ(Opcodes(lowered, phase), decode ? expected_decode : expected);
    const engine::LoweringCounts& c = report.phase(phase);
    EXPECT_EQ(c.add_rms_norms, 2);
    EXPECT_EQ(c.biases_in_rope, 2);
    EXPECT_EQ(c.rope_pairs, 1);
    EXPECT_EQ(c.shared_inputs, decode ? 0 : 3);
    EXPECT_EQ(c.biases_in_attention, 1);
    EXPECT_EQ(c.rounded_outputs, decode ? 2 : 3);
    EXPECT_EQ(c.gate_up_matvecs, decode ? 1 : 0);
    EXPECT_EQ(c.multi_matvecs, decode ? 2 : 0);
    EXPECT_EQ(c.total(), decode ? 15 : 12);
  }
  const PlanInstruction& qkv = lowered.phase(Phase::kDecode).instructions[2];
  EXPECT_EQ(qkv.inputs, std::vector<int32_t>{2});
  EXPECT_EQ(qkv.outputs, (std::vector<int32_t>{3, 4, 5}));
  EXPECT_EQ(qkv.weights, (std::vector<std::string>{"wq", "wk", "wv"}));  // biases moved on
  EXPECT_EQ(qkv.ParamsAs<engine::LoweredMatvecParams>().shared_input, 0u);
  const PlanInstruction& glu = lowered.phase(Phase::kDecode).instructions[7];
  EXPECT_EQ(glu.inputs, std::vector<int32_t>{8});
  EXPECT_EQ(glu.outputs, (std::vector<int32_t>{9, 10, 11}));
  EXPECT_EQ(glu.weights, (std::vector<std::string>{"gate", "up"}));
  EXPECT_EQ(glu.ParamsAs<engine::LoweredMatvecParams>().shared_input, 1u);  // the norm rounds x
  const std::vector<PlanInstruction>& insns = lowered.phase(Phase::kPrefill).instructions;
  // Q and K lose their biases to the rope, V to the attention.
  EXPECT_EQ(insns[2].weights, std::vector<std::string>{"wq"});
  EXPECT_EQ(insns[3].weights, std::vector<std::string>{"wk"});
  EXPECT_EQ(insns[4].weights, std::vector<std::string>{"wv"});
  EXPECT_EQ(insns[6].weights, std::vector<std::string>{"bv"});
  const auto ap = insns[6].ParamsAs<engine::LoweredAttentionParams>();
  EXPECT_EQ(ap.has_sinks, 0u);
  EXPECT_EQ(ap.has_v_bias, 1u);
  EXPECT_EQ(ap.round_output, 1u);
  EXPECT_EQ(ap.attention.n_head, 14u);
  const PlanInstruction& rope = insns[5];
  EXPECT_EQ(rope.inputs, (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(rope.outputs, rope.inputs);
  EXPECT_EQ(rope.weights, (std::vector<std::string>{"bq", "bk"}));
  const auto rp = rope.ParamsAs<engine::LoweredRopeParams>();
  EXPECT_EQ(rp.has_freq_factors, 0u);
  EXPECT_EQ(rp.has_bias[0], 1u);
  EXPECT_EQ(rp.has_bias[1], 1u);
  EXPECT_EQ(std::memcmp(&rp.rope, Rope().data(), sizeof rp.rope), 0);
  // The residual sum stays an output (the next ADD reads it).
  EXPECT_EQ(insns[8].inputs, (std::vector<int32_t>{1, 7}));
  EXPECT_EQ(insns[8].outputs, (std::vector<int32_t>{1, 8}));
  EXPECT_EQ(insns[8].weights, std::vector<std::string>{"ffn_norm"});
  // The first norm rounds its output for the gate MATMUL; the last one feeds
  // LOGITS, which rounds for itself.
  EXPECT_EQ(insns[8].ParamsAs<engine::LoweredNormParams>().quantize_output, 1u);
  EXPECT_EQ(insns[13].ParamsAs<engine::LoweredNormParams>().quantize_output, 0u);
  EXPECT_FLOAT_EQ(insns[13].ParamsAs<engine::LoweredNormParams>().norm.eps, 1e-6f);
}

TEST(Lowering, TheCpuTableGetsThePlanAsWritten) {
  const engine::AdapterTable cpu = engine::cpu::MakeCpuAdapterTable();
  const ExecutionPlan plan = PlanOf(QwenLayer());
  LoweringReport report;
  const ExecutionPlan lowered = engine::LowerPlan(plan, cpu, &report);
  EXPECT_EQ(report.total(), 0);
  EXPECT_EQ(Opcodes(lowered, Phase::kDecode), Opcodes(plan, Phase::kDecode));
}

TEST(Lowering, LeavesSequencesItCannotFuseSafely) {
  const engine::AdapterTable cuda = engine::cuda::MakeCudaAdapterTable();
  std::vector<PlanInstruction> insns = QwenLayer();
  // q read before its rope: the bias must be in q when that read happens;
  // v read after the attention: the bias must be in v itself.
  insns.insert(insns.begin() + 8, Insn(ORCD_OP_MUL, {5, 5}, {16}));
  insns.insert(insns.begin() + 5, Insn(ORCD_OP_MUL, {3, 3}, {15}));
  // K's rope with other parameters: no pair.
  insns[7].params = Rope(32);
  // Per-head norm after the first residual ADD; in-place norm after the second.
  insns[12].params = Norm(64);
  insns[18] = Insn(ORCD_OP_RMS_NORM, {1}, {1}, {"output_norm"}, Norm());
  insns[19].inputs = {1};
  LoweringReport report;
  const ExecutionPlan lowered = engine::LowerPlan(PlanOf(insns), cuda, &report);
  const engine::LoweringCounts& c = report.phase(Phase::kDecode);
  EXPECT_EQ(c.biases_in_rope, 1);  // K's only
  EXPECT_EQ(c.rope_pairs, 0);
  EXPECT_EQ(c.add_rms_norms, 0);
  EXPECT_EQ(c.biases_in_attention, 0);
  const std::vector<PlanInstruction>& out = lowered.phase(Phase::kDecode).instructions;
  EXPECT_EQ(out[2].weights, (std::vector<std::string>{"wq", "bq"}));
  EXPECT_EQ(out[4].weights, (std::vector<std::string>{"wv", "bv"}));
  EXPECT_EQ(engine::OpcodeName(out[6].opcode), "ROPE");
  EXPECT_EQ(engine::OpcodeName(out[7].opcode), "ROPE_FUSED");
}

// Gate/up fusion only where nothing else needs g or u, the MATMULs have no
// bias, and the backend runs those two weights fused.
TEST(Lowering, FusesGateAndUpOnlyWhereTheirOutputsAreNotNeeded) {
  const engine::AdapterTable cuda = engine::cuda::MakeCudaAdapterTable();
  const auto glu_count = [&](const std::vector<PlanInstruction>& insns,
                             const engine::WeightQueries& queries) {
    LoweringReport report;
    engine::LowerPlan(PlanOf(insns), cuda, &report, queries);
    return report.phase(Phase::kDecode).gate_up_matvecs;
  };
  const std::vector<PlanInstruction> layer = QwenLayer();
  ASSERT_EQ(glu_count(layer, {}), 1);
  std::vector<PlanInstruction> read_later = layer;  // u read after the SWIGLU
  read_later.insert(read_later.begin() + 14, Insn(ORCD_OP_MUL, {10, 10}, {15}));
  EXPECT_EQ(glu_count(read_later, {}), 0);
  std::vector<PlanInstruction> biased = layer;
  biased[11].weights.push_back("gate_bias");
  EXPECT_EQ(glu_count(biased, {}), 0);
  std::vector<PlanInstruction> in_place = layer;  // SWIGLU writes into g
  in_place[13].outputs = {9};
  in_place[14].inputs = {9};
  EXPECT_EQ(glu_count(in_place, {}), 0);
  engine::WeightQueries refuses;
  refuses.fuses_gate_up = [](const std::string& gate, const std::string& up) {
    return !(gate == "gate" && up == "up");
  };
  EXPECT_EQ(glu_count(layer, refuses), 0);
}

// Q, K and V join one MATMUL_MULTI only as far as the backend runs their
// weights together; a MATMUL left out reuses the launch's input rounding.
TEST(Lowering, JoinsSameInputMatmulsTheBackendRunsTogether) {
  const engine::AdapterTable cuda = engine::cuda::MakeCudaAdapterTable();
  engine::WeightQueries v_apart;
  v_apart.joins_matvecs = [](const std::string&, const std::string& b) { return b != "wv"; };
  LoweringReport report;
  const ExecutionPlan lowered = engine::LowerPlan(PlanOf(QwenLayer()), cuda, &report, v_apart);
  const std::vector<PlanInstruction>& insns = lowered.phase(Phase::kDecode).instructions;
  EXPECT_EQ(engine::OpcodeName(insns[2].opcode), "MATMUL_MULTI");
  EXPECT_EQ(insns[2].weights, (std::vector<std::string>{"wq", "wk"}));
  EXPECT_EQ(engine::OpcodeName(insns[3].opcode), "MATMUL_SHARED_INPUT");
  EXPECT_EQ(insns[3].weights, std::vector<std::string>{"wv"});
  EXPECT_EQ(report.phase(Phase::kDecode).multi_matvecs, 1);
  EXPECT_EQ(report.phase(Phase::kDecode).shared_inputs, 1);
  engine::WeightQueries none;
  none.joins_matvecs = [](const std::string&, const std::string&) { return false; };
  engine::LowerPlan(PlanOf(QwenLayer()), cuda, &report, none);
  EXPECT_EQ(report.phase(Phase::kDecode).multi_matvecs, 0);
  EXPECT_EQ(report.phase(Phase::kDecode).shared_inputs, 2);
}

// A MOE becomes MOE_GLU in the decode phase where the backend fuses its gate
// and up experts; prefill keeps it.
TEST(Lowering, MarksDecodeMoesWhoseExpertsFuse) {
  const engine::AdapterTable cuda = engine::cuda::MakeCudaAdapterTable();
  const std::vector<PlanInstruction> insns = {
      Insn(ORCD_OP_EMBEDDING, {ORCD_REG_TOKENS}, {1}, {"token_embd"}),
      Insn(ORCD_OP_MATMUL, {1}, {2}, {"router"}),
      Insn(ORCD_OP_MOE, {1, 2}, {3}, {"gate_exps", "up_exps", "down_exps"}),
      Insn(ORCD_OP_LOGITS, {3}, {14}, {"output"}),
  };
  LoweringReport report;
  ExecutionPlan lowered = engine::LowerPlan(PlanOf(insns), cuda, &report);
  EXPECT_EQ(engine::OpcodeName(lowered.phase(Phase::kDecode).instructions[2].opcode), "MOE_GLU");
  EXPECT_EQ(engine::OpcodeName(lowered.phase(Phase::kPrefill).instructions[2].opcode), "MOE");
  EXPECT_EQ(report.phase(Phase::kDecode).moe_gate_ups, 1);
  EXPECT_EQ(report.phase(Phase::kDecode).total(), 2);
  EXPECT_EQ(report.phase(Phase::kPrefill).total(), 0);
  engine::WeightQueries refuses;
  refuses.fuses_gate_up = [](const std::string&, const std::string&) { return false; };
  lowered = engine::LowerPlan(PlanOf(insns), cuda, &report, refuses);
  EXPECT_EQ(engine::OpcodeName(lowered.phase(Phase::kDecode).instructions[2].opcode), "MOE");
  EXPECT_EQ(report.total(), 0);
}

// A plugin whose plan names a lowered opcode.
orcd_error* EmitLoweredOpcode(const orcd_model_view*, const orcd_model_view_ops*,
                              orcd_plan_builder* builder, const orcd_plan_builder_ops* ops) {
  const int32_t in[] = {1, 2};
  const int32_t out[] = {1, 3};
  orcd_instruction insn{
      sizeof(orcd_instruction), engine::kOpAddRmsNorm, in, 2, out, 2, nullptr, 0, nullptr, 0};
  return ops->add_instruction(builder, ORCD_PHASE_DECODE, &insn);
}

TEST(Lowering, PluginsCannotEmitTheHostsLoweredOpcodes) {
  const std::unique_ptr<GgufFile> file = GgufFile::Open(FixtureModel("qwen2-tiny.F16"));
  orcd_arch_plugin plugin{};
  plugin.struct_size = sizeof plugin;
  plugin.compile = &EmitLoweredOpcode;
  try {
    engine::CompilePlan(plugin, *file);
    FAIL() << "a plan naming a lowered opcode was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reserved for the host"), std::string::npos) << e.what();
  }
}

struct FusedCase {
  const char* golden;
  const char* model;
};

class FusedPlans : public ::testing::TestWithParam<FusedCase> {};

// Fused and unfused plans on the emulated device: the same logits bit for
// bit (prefill rows and graph-replayed decode steps), and each decode-phase
// fusion one launch fewer in the recorded step (gpt-oss: its F32 router
// takes f32 input, so its norm does not round for it).
TEST_P(FusedPlans, GiveTheUnfusedLogitsBitForBitWithFewerLaunches) {
  const FusedCase c = GetParam();
  const Golden golden = LoadGolden(c.golden);
  engine::EngineOptions unfused_options;
  unfused_options.fuse_ops = false;
  auto unfused = LoadEmulatedCudaEngine(c.model, 1ull << 30, unfused_options);
  auto fused = LoadEmulatedCudaEngine(c.model);
  EXPECT_EQ(unfused->info().fused_sequences, 0);
  const LoweringReport& report = fused->lowering();
  ASSERT_GT(report.total(), 0) << c.model << ": nothing to fuse";
  EXPECT_EQ(fused->info().fused_sequences, report.total());

  const std::vector<float> a = TeacherForcedLogits(*unfused, golden.prompt, golden.greedy);
  const std::vector<float> b = TeacherForcedLogits(*fused, golden.prompt, golden.greedy);
  const std::string diff = FirstBitDifference(a, b, golden, "unfused", "fused");
  ASSERT_TRUE(diff.empty()) << c.model << ": " << diff;
  const size_t saved = unfused->cuda_backend()->decode_graph_kernels() -
                       fused->cuda_backend()->decode_graph_kernels();
  EXPECT_EQ(saved, static_cast<size_t>(report.phase(Phase::kDecode).total()))
      << c.model << ": unfused step " << unfused->cuda_backend()->decode_graph_kernels()
      << " launches, fused " << fused->cuda_backend()->decode_graph_kernels();
}

// The fused gate/up ops need 8-bit input; where the backend keeps the input
// f32 (its q8 path switched off after the lowering assumed it on), MATMUL_GLU
// and MOE_GLU run the sequence they stand for: the unfused f32 plan's bits.
TEST_P(FusedPlans, FallBackToTheSequenceWithF32Input) {
  const FusedCase c = GetParam();
  const Golden golden = LoadGolden(c.golden);
  engine::EngineOptions f32_options;
  f32_options.fuse_ops = false;
  f32_options.q8_decode_activations = false;
  auto unfused = LoadEmulatedCudaEngine(c.model, 1ull << 30, f32_options);
  auto fused = LoadEmulatedCudaEngine(c.model);
  const engine::LoweringCounts& d = fused->lowering().phase(Phase::kDecode);
  if (d.gate_up_matvecs + d.moe_gate_ups == 0) GTEST_SKIP() << c.model << ": no gate/up fusion";
  fused->cuda_backend()->set_q8_activations(false);
  const std::vector<float> a = TeacherForcedLogits(*unfused, golden.prompt, golden.greedy);
  const std::vector<float> b = TeacherForcedLogits(*fused, golden.prompt, golden.greedy);
  const std::string diff = FirstBitDifference(a, b, golden, "unfused f32", "fused, q8 off");
  EXPECT_TRUE(diff.empty()) << c.model << ": " << diff;
}

INSTANTIATE_TEST_SUITE_P(Models, FusedPlans,
                         ::testing::Values(FusedCase{"qwen2-tiny.Q4_K_M", "qwen2-tiny.Q4_K_M"},
                                           FusedCase{"phi3-tiny.Q4_K_M", "phi3-tiny.Q4_K_M"},
                                           FusedCase{"gptoss-tiny.MXFP4_MOE",
                                                     "gptoss-tiny.MXFP4_MOE"}),
                         [](const ::testing::TestParamInfo<FusedCase>& info) {
                           std::string name = info.param.model;
                           for (char& ch : name) {
                             if (ch == '.' || ch == '-') ch = '_';
                           }
                           return name;
                         });

// Full prefill passes (max_batch tokens): the fused plan's matmuls take the
// tensor-core path as the unfused plan's do, so the same bits. The f16
// operand was once sized from the MATMULs the lowering had not renamed, and a
// full pass's FFN down fell back to the plugin's kernel (27 % of
// Qwen2.5-0.5B's prefill on an H100); 30-token goldens never filled a pass.
TEST(FusedPlans, FullPrefillPassesGiveTheUnfusedBits) {
  for (const char* model : {"qwen2-tiny.Q4_K_M", "gptoss-tiny.MXFP4_MOE"}) {
    const Golden golden = LoadGolden(model);
    engine::EngineOptions options;
    options.max_batch = 16;  // the smallest pass that takes the tensor cores
    auto fused = LoadEmulatedCudaEngine(model, 1ull << 30, options);
    options.fuse_ops = false;
    auto unfused = LoadEmulatedCudaEngine(model, 1ull << 30, options);
    const std::vector<int32_t> prompt(golden.prompt.begin(), golden.prompt.begin() + 16);
    const std::span<const float> a = unfused->Prefill(prompt, engine::LogitRows::kAll);
    const std::vector<float> unfused_rows(a.begin(), a.end());
    const std::span<const float> b = fused->Prefill(prompt, engine::LogitRows::kAll);
    ASSERT_EQ(b.size(), unfused_rows.size());
    EXPECT_EQ(std::memcmp(b.data(), unfused_rows.data(), b.size() * sizeof(float)), 0)
        << model << ": a full pass's logits differ fused and unfused";
  }
}

// What the fusions come to on Qwen2's decode step: per layer two
// ADD+RMS_NORM (layer 0's first norm follows the embedding; the output norm
// counts instead), Q's and K's biases, one rope pair, K and V each joining
// Q's launch (same weight type) or reusing its input rounding, the ffn norm
// rounding its output for the gate/up matvec (the attention norm too from
// layer 1 on), V's bias in the attention, the attention rounding its output,
// and gate, up and SWIGLU in one launch (three fewer): 14 launches per layer,
// less one, and one more per joined matvec.
TEST(FusedPlans, SaveFourteenLaunchesPerQwen2LayerAndOnePerJoinedMatvec) {
  auto fused = LoadEmulatedCudaEngine("qwen2-tiny.Q4_K_M");
  const LoweringReport& report = fused->lowering();
  int layers = 0;
  for (const PlanInstruction& insn : fused->plan().phase(Phase::kDecode).instructions)
    layers += insn.opcode == ORCD_OP_ATTENTION ? 1 : 0;
  ASSERT_GT(layers, 0);
  const engine::LoweringCounts& c = report.phase(Phase::kDecode);
  EXPECT_EQ(c.add_rms_norms, 2 * layers);
  EXPECT_EQ(c.biases_in_rope, 2 * layers);
  EXPECT_EQ(c.rope_pairs, layers);
  EXPECT_EQ(c.shared_inputs + c.multi_matvecs, 2 * layers);
  EXPECT_GE(c.multi_matvecs, layers);  // K has Q's type in every layer of the fixture
  EXPECT_EQ(c.biases_in_attention, layers);
  EXPECT_EQ(c.rounded_outputs, 3 * layers - 1);
  EXPECT_EQ(c.gate_up_matvecs, layers);
  EXPECT_EQ(c.total(), 14 * layers - 1 + c.multi_matvecs);
}

}  // namespace
}  // namespace orcd::testing
