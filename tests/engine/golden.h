// Reference logits from fixtures/goldens: the teacher-forced sequence
// (prompt_tokens + greedy_tokens), the logits of every position, each row's
// top-1 margin; and the per-row comparison statistics the tests bound.
#ifndef ORCD_TESTS_ENGINE_GOLDEN_H_
#define ORCD_TESTS_ENGINE_GOLDEN_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace orcd::testing {

struct Golden {
  std::string model;  // e.g. "qwen2-tiny.F16"
  std::vector<int32_t> prompt;
  std::vector<int32_t> greedy;
  int64_t vocab = 0;
  std::vector<float> logits;  // [prompt + greedy][vocab]
  std::vector<double> margins;
  std::vector<int32_t> top1;

  int64_t rows() const { return static_cast<int64_t>(prompt.size() + greedy.size()); }
  std::span<const float> row(int64_t r) const {
    return std::span<const float>(logits).subspan(static_cast<size_t>(r * vocab),
                                                  static_cast<size_t>(vocab));
  }
};

// models/<model>.gguf; a name with a '/' ("real/stories260K") is relative to
// the fixtures and its golden lies beside it (<name>.golden.json).
std::filesystem::path FixtureModel(const std::string& model);
Golden LoadGolden(const std::string& model);  // goldens/<model>.json + .logits.f32

struct RowStats {
  std::vector<double> rel;  // ||a - b|| / ||b|| per row
  double max_abs = 0.0;     // over all rows
  double median = 0.0, p90 = 0.0, max = 0.0;
};

// a and b are [rows][vocab].
RowStats CompareRows(std::span<const float> a, std::span<const float> b, int64_t vocab);

int32_t Argmax(std::span<const float> row);  // ties: lowest id

// How close a backend's logits must be to a golden (see golden_check.cc for
// the reasoning behind each bound).
enum class Tolerance { kF16, kQuantized, kQuantizedMoe, kKvQ8 };

// GoogleTest expectations: per-row relative RMS within the tolerance, and the
// argmax where the golden's top-1 margin is clear. Prints the statistics.
void ExpectMatchesGolden(std::span<const float> ours, const Golden& golden, Tolerance tolerance);

// A parameterised golden test's case, and its test name (the golden with
// '-', '.' and '/' as '_').
struct GoldenCase {
  const char* golden;  // LoadGolden's name
  const char* model;   // FixtureModel's name
  Tolerance tolerance;
};
std::string GoldenCaseName(const ::testing::TestParamInfo<GoldenCase>& info);
// A fixture model's name ("qwen2-tiny.Q4_K_M") as a test name.
std::string ModelParamName(const ::testing::TestParamInfo<const char*>& info);
inline void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.golden; }

}  // namespace orcd::testing

#endif  // ORCD_TESTS_ENGINE_GOLDEN_H_
