// Teacher-forced logits against the llama.cpp goldens (fixtures/goldens), for
// every fixture of the architectures the llama plugin serves.
//
// Tolerances (fixtures/README.md, "Calibration" and "Independent check"):
//  - F16 files: an exact float64 re-implementation lands at per-row relative
//    RMS median 8.0e-4 / p90 1.25e-3 / max 1.31e-3 from the qwen2-tiny.F16
//    golden (llama.cpp rounds activations to f16 before F16 matmuls, we keep
//    f32). llama.cpp's own batch-vs-sequential noise is 1.5e-3 (max abs
//    2.4e-3). We allow p90 <= 4e-3 (about 3x that) and max <= 2e-2.
//  - Quantized files: llama.cpp quantizes activations to 8 bits before every
//    quantized matmul; we do not (the quant plugins keep x in f32), so ~1-2e-2
//    relative is expected (float64 check: median 1.1e-2..1.5e-2, max 1.8e-2).
//    We allow median <= 4e-2 and, so one bad row cannot hide, max <= 8e-2.
//  - Argmax: random-weight logits are flat (top-1/top-2 gaps often < 0.01), so
//    argmax is compared only where the golden margin exceeds twice our
//    observed max abs deviation (the README's criterion), and at least half
//    of the rows must qualify so the check is not vacuous.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "engine_test_support.h"
#include "golden.h"

namespace orcd::testing {
namespace {

struct GoldenCase {
  const char* model;
  bool quantized;
};

class GoldenLogits : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenLogits, TeacherForcedRowsMatch) {
  const GoldenCase c = GetParam();
  const Golden golden = LoadGolden(c.model);
  auto engine = LoadFixtureEngine(c.model);
  ASSERT_EQ(engine->info().vocab, golden.vocab);
  const std::vector<float> ours = TeacherForcedLogits(*engine, golden.prompt, golden.greedy);
  ASSERT_EQ(ours.size(), golden.logits.size());
  const RowStats s = CompareRows(ours, golden.logits, golden.vocab);

  std::string rows;
  for (double r : s.rel) rows += (rows.empty() ? "" : " ") + std::to_string(r).substr(0, 8);
  std::printf("%s: rel rms per row median %.3e p90 %.3e max %.3e; max abs %.3e\nrows: %s\n",
              c.model, s.median, s.p90, s.max, s.max_abs, rows.c_str());
  RecordProperty("rel_median", std::to_string(s.median));
  RecordProperty("rel_p90", std::to_string(s.p90));
  RecordProperty("rel_max", std::to_string(s.max));
  RecordProperty("max_abs", std::to_string(s.max_abs));

  if (c.quantized) {
    EXPECT_LE(s.median, 4e-2);
    EXPECT_LE(s.max, 8e-2);
  } else {
    EXPECT_LE(s.p90, 4e-3);
    EXPECT_LE(s.max, 2e-2);
  }

  const double threshold = 2.0 * s.max_abs;
  int64_t checked = 0;
  for (int64_t r = 0; r < golden.rows(); ++r) {
    if (golden.margins[r] <= threshold) continue;
    ++checked;
    const std::span<const float> row(ours.data() + r * golden.vocab, golden.vocab);
    EXPECT_EQ(Argmax(row), golden.top1[r]) << "row " << r << " margin " << golden.margins[r];
  }
  std::printf("argmax compared on %lld of %lld rows (margin > %.3e)\n",
              static_cast<long long>(checked), static_cast<long long>(golden.rows()), threshold);
  EXPECT_GE(checked * 2, golden.rows()) << "too few rows with a clear top-1 margin";
}

INSTANTIATE_TEST_SUITE_P(LlamaFamily, GoldenLogits,
                         ::testing::Values(GoldenCase{"qwen2-tiny.F16", false},
                                           GoldenCase{"qwen2-tiny.Q4_K_M", true},
                                           GoldenCase{"qwen2-tiny.Q4_0", true},
                                           GoldenCase{"phi3-tiny.Q4_K_M", true}),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           std::string name = info.param.model;
                           for (char& ch : name) {
                             if (ch == '-' || ch == '.') ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace orcd::testing
