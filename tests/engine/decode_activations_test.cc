// EngineOptions::q8_decode_activations (device.cpu_decode_activations): the
// 8-bit activation path is taken on quantized files and costs no more than
// the rounding it is known for.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "engine_test_support.h"
#include "golden.h"

namespace orcd::testing {
namespace {

// Decode with 8-bit activations (the default) against f32 activations, both
// teacher-forced over the golden's tokens. On a quantized file they differ
// (the path is really taken) but stay within the activation rounding: each
// matmul moves ~0.3 %, the whole network ~1 % — tolerance 3e-2 per row, the
// fixtures' 8-bit self-delta (~1.5e-2) with headroom. On an F16 file (host
// kernels, no q8 path) they are identical.
double DecodeDelta(const std::string& model) {
  const Golden golden = LoadGolden(model);
  engine::EngineOptions f32;
  f32.q8_decode_activations = false;
  auto q8_engine = LoadFixtureEngine(model);
  auto f32_engine = LoadFixtureEngine(model, f32);
  const std::vector<float> a = TeacherForcedLogits(*q8_engine, golden.prompt, golden.greedy);
  const std::vector<float> b = TeacherForcedLogits(*f32_engine, golden.prompt, golden.greedy);
  const RowStats stats = CompareRows(a, b, golden.vocab);
  std::printf("%s: q8 vs f32 decode activations, rel RMS per row median %.3e max %.3e\n",
              model.c_str(), stats.median, stats.max);
  return stats.max;
}

TEST(DecodeActivations, Q8StaysWithinTheRoundingOfF32) {
  for (const char* model :
       {"qwen2-tiny.Q4_K_M", "phi3-tiny.Q4_K_M", "gpt2-tiny.Q8_0", "gptoss-tiny.MXFP4_MOE"}) {
    const double max_rel = DecodeDelta(model);
    EXPECT_GT(max_rel, 0.0) << model << ": the q8 path was not taken";
    EXPECT_LT(max_rel, 3e-2) << model;
  }
  EXPECT_EQ(DecodeDelta("qwen2-tiny.F16"), 0.0);
}

}  // namespace
}  // namespace orcd::testing
