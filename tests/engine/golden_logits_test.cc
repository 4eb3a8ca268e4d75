// Teacher-forced logits of every fixture model against the llama.cpp
// goldens (fixtures/goldens), through the real plugin modules: the llama
// plugin (qwen2, phi3, and the real trained stories260K the demo serves: F32
// weights and an f16 KV cache, so the F16 bounds) and the gpt plugin (gpt2,
// gpt-oss).
//
// Tolerances: golden_check.cc.
#include <gtest/gtest.h>

#include <string>

#include "engine_test_support.h"
#include "golden.h"

namespace orcd::testing {
namespace {

class GoldenLogits : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenLogits, TeacherForcedRowsMatch) {
  const GoldenCase c = GetParam();
  ExpectTeacherForcedMatch(*LoadFixtureEngine(c.model), c);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, GoldenLogits,
    ::testing::Values(
        GoldenCase{"qwen2-tiny.F16", "qwen2-tiny.F16", Tolerance::kF16},
        GoldenCase{"qwen2-tiny.Q4_K_M", "qwen2-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"qwen2-tiny.Q4_0", "qwen2-tiny.Q4_0", Tolerance::kQuantized},
        GoldenCase{"phi3-tiny.Q4_K_M", "phi3-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"gpt2-tiny.F16", "gpt2-tiny.F16", Tolerance::kF16},
        GoldenCase{"gpt2-tiny.Q8_0", "gpt2-tiny.Q8_0", Tolerance::kQuantized},
        GoldenCase{"gptoss-tiny.F16", "gptoss-tiny.F16", Tolerance::kF16},
        GoldenCase{"gptoss-tiny.F16.long", "gptoss-tiny.F16", Tolerance::kF16},
        GoldenCase{"gptoss-tiny.MXFP4_MOE", "gptoss-tiny.MXFP4_MOE", Tolerance::kQuantizedMoe},
        GoldenCase{"gptoss-tiny.MXFP4_MOE.long", "gptoss-tiny.MXFP4_MOE", Tolerance::kQuantizedMoe},
        GoldenCase{"llama3-tiny.F16", "llama3-tiny.F16", Tolerance::kF16},
        GoldenCase{"llama3-tiny.Q4_K_M", "llama3-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"qwen3-tiny.F16", "qwen3-tiny.F16", Tolerance::kF16},
        GoldenCase{"qwen3-tiny.Q4_K_M", "qwen3-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"qwen3moe-tiny.F16", "qwen3moe-tiny.F16", Tolerance::kF16},
        GoldenCase{"qwen3moe-tiny.Q4_K_M", "qwen3moe-tiny.Q4_K_M", Tolerance::kQuantizedMoe},
        GoldenCase{"gemma2-tiny.F16", "gemma2-tiny.F16", Tolerance::kF16},
        GoldenCase{"gemma2-tiny.Q4_K_M", "gemma2-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"gemma3-tiny.F16", "gemma3-tiny.F16", Tolerance::kF16},
        GoldenCase{"gemma3-tiny.Q4_K_M", "gemma3-tiny.Q4_K_M", Tolerance::kQuantized},
        GoldenCase{"real/stories260K", "real/stories260K", Tolerance::kF16}),
    GoldenCaseName);

}  // namespace
}  // namespace orcd::testing
