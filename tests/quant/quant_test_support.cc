#include "quant_test_support.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <sstream>

namespace orcd::quant::test {

std::string fixtures_dir() {
  const char* env = std::getenv("ORCD_FIXTURES_DIR");  // the GPU kit runs elsewhere
  return std::string(env && *env ? env : ORCD_FIXTURES_DIR) + "/quant";
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::vector<float> read_f32(const std::string& path) {
  const std::vector<uint8_t> bytes = read_bytes(path);
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

std::optional<double> json_number(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::regex pattern("\"" + key + "\"\\s*:\\s*([-+0-9.eE]+)");
  std::smatch m;
  const std::string s = text.str();
  if (!std::regex_search(s, m, pattern)) return std::nullopt;
  return std::stod(m[1].str());
}

std::optional<Golden> load_golden(const std::string& type) {
  const std::string base = fixtures_dir() + "/" + type;
  Golden g;
  g.type = type;
  const auto rows = json_number(base + ".json", "rows");
  const auto cols = json_number(base + ".json", "cols");
  const auto q_bytes = json_number(base + ".json", "q_bin_bytes");
  const auto rms = json_number(base + ".json", "rms_err_rel");
  if (!rows || !cols || !q_bytes || !rms) {
    ADD_FAILURE() << "cannot read " << base << ".json";
    return std::nullopt;
  }
  g.rows = static_cast<int64_t>(*rows);
  g.cols = static_cast<int64_t>(*cols);
  g.rms_err_rel = *rms;
  g.src = read_f32(base + ".src.f32");
  g.q = read_bytes(base + ".q.bin");
  g.deq = read_f32(base + ".deq.f32");
  g.x = read_f32(base + ".x.f32");
  g.y = read_f32(base + ".y.f32");
  const size_t n = static_cast<size_t>(g.rows * g.cols);
  if (g.src.size() != n || g.deq.size() != n || g.q.size() != static_cast<size_t>(*q_bytes) ||
      g.x.size() != static_cast<size_t>(g.cols) || g.y.size() != static_cast<size_t>(g.rows)) {
    ADD_FAILURE() << "fixture files of " << base << " are missing or mis-sized";
    return std::nullopt;
  }
  return g;
}

std::vector<float> random_normal(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> out(static_cast<size_t>(n));
  for (float& v : out) v = normal(rng);
  return out;
}

std::vector<float> random_weights(int64_t rows, int64_t cols, uint64_t seed) {
  std::vector<float> w = random_normal(rows * cols, seed);
  std::mt19937_64 rng(seed ^ 0x9E3779B97F4A7C15ull);
  std::uniform_int_distribution<size_t> pick(0, w.size() - 1);
  for (size_t k = 0; k < w.size() / 128; ++k) w[pick(rng)] *= 10.0f;
  return w;
}

double relative_rms(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

std::vector<double> reference_matmul(const std::vector<float>& deq, int64_t rows, int64_t cols,
                                     const std::vector<float>& x, int64_t n_tokens) {
  std::vector<double> y(static_cast<size_t>(rows * n_tokens));
  for (int64_t t = 0; t < n_tokens; ++t) {
    for (int64_t r = 0; r < rows; ++r) {
      double s = 0;
      for (int64_t c = 0; c < cols; ++c) {
        s += static_cast<double>(deq[r * cols + c]) * x[t * cols + c];
      }
      y[t * rows + r] = s;
    }
  }
  return y;
}

std::vector<double> abs_product_sums(const std::vector<float>& deq, int64_t rows, int64_t cols,
                                     const std::vector<float>& x, int64_t n_tokens) {
  std::vector<double> s(static_cast<size_t>(rows * n_tokens));
  for (int64_t t = 0; t < n_tokens; ++t) {
    for (int64_t r = 0; r < rows; ++r) {
      double a = 0;
      for (int64_t c = 0; c < cols; ++c) {
        a += std::fabs(static_cast<double>(deq[r * cols + c]) * x[t * cols + c]);
      }
      s[t * rows + r] = a;
    }
  }
  return s;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<orcd_q8_x32> round_to_q8_x32(const std::vector<float>& x) {
  std::vector<orcd_q8_x32> runs(x.size() / 32);
  for (size_t r = 0; r < runs.size(); ++r) {
    float amax = 0.0f;
    for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[32 * r + i]));
    runs[r].d = amax / 127.0f;
    const float inverse = runs[r].d != 0.0f ? 1.0f / runs[r].d : 0.0f;
    for (int i = 0; i < 32; ++i) {
      runs[r].qs[i] = static_cast<int8_t>(std::nearbyint(x[32 * r + i] * inverse));
    }
  }
  return runs;
}

std::vector<float> q8_x32_values(const std::vector<orcd_q8_x32>& xq) {
  std::vector<float> x(xq.size() * 32);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = xq[i / 32].d * static_cast<float>(xq[i / 32].qs[i % 32]);
  return x;
}

}  // namespace orcd::quant::test
