// Helpers shared by the quant CPU and GPU tests: the ggml golden fixtures
// (see fixtures/README.md, "quant/"), random data, error measures.
#ifndef ORCD_TESTS_QUANT_QUANT_TEST_SUPPORT_H_
#define ORCD_TESTS_QUANT_QUANT_TEST_SUPPORT_H_

#include <stdint.h>

#include <optional>
#include <string>
#include <vector>

#include "orcd/plugin.h"

namespace orcd::quant::test {

// The files of one type: src (rows x cols), ggml's blocks, ggml's to_float,
// x (cols), y = deq . x in float64 (rows), and the .json's numbers.
struct Golden {
  std::string type;
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> src;
  std::vector<uint8_t> q;
  std::vector<float> deq;
  std::vector<float> x;
  std::vector<float> y;
  double rms_err_rel = 0;  // ggml's ||deq - src|| / ||src|| on this src
};

// Loads <dir>/<type>.*; fails the current test (ADD_FAILURE) and returns
// nullopt when a file is missing or mis-sized.
std::optional<Golden> load_golden(const std::string& type);

std::string fixtures_dir();  // ORCD_FIXTURES_DIR "/quant"

std::vector<uint8_t> read_bytes(const std::string& path);
std::vector<float> read_f32(const std::string& path);
// The number following "key": in a JSON file (flat lookup, first match).
std::optional<double> json_number(const std::string& path, const std::string& key);

// rows x cols of N(0, 1) with about one entry in 128 multiplied by 10: the
// fixtures' recipe (different generator, same distribution).
std::vector<float> random_weights(int64_t rows, int64_t cols, uint64_t seed);
std::vector<float> random_normal(int64_t n, uint64_t seed);

// ||a - b||_2 / ||b||_2 in double.
double relative_rms(const std::vector<float>& a, const std::vector<float>& b);

// float64 reference y[t * rows + r] = sum_c deq[r][c] * x[t][c].
std::vector<double> reference_matmul(const std::vector<float>& deq, int64_t rows, int64_t cols,
                                     const std::vector<float>& x, int64_t n_tokens);
// Per output: sum_c |deq[r][c] * x[t][c]|, the scale of f32 summation error.
std::vector<double> abs_product_sums(const std::vector<float>& deq, int64_t rows, int64_t cols,
                                     const std::vector<float>& x, int64_t n_tokens);

bool same_bits(float a, float b);

// x (a multiple of 32 values) rounded as orcd/plugin.h defines orcd_q8_x32
// (d = max|x| / 127, nearest-even of x * (1 / d)), written out here
// independently of the kernels; and the values d * q the runs stand for.
std::vector<orcd_q8_x32> round_to_q8_x32(const std::vector<float>& x);
std::vector<float> q8_x32_values(const std::vector<orcd_q8_x32>& xq);

}  // namespace orcd::quant::test

#endif  // ORCD_TESTS_QUANT_QUANT_TEST_SUPPORT_H_
