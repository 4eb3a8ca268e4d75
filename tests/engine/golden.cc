#include "golden.h"

#include <Poco/JSON/Parser.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace orcd::testing {
namespace {

// $ORCD_FIXTURES_DIR overrides the build's path (the GPU kit runs elsewhere).
std::filesystem::path Fixtures() {
  const char* env = std::getenv("ORCD_FIXTURES_DIR");
  return std::filesystem::path(env && *env ? env : ORCD_FIXTURES_DIR);
}

template <class T>
std::vector<T> Array(const Poco::JSON::Object::Ptr& obj, const std::string& key) {
  std::vector<T> out;
  Poco::JSON::Array::Ptr a = obj->getArray(key);
  if (!a) throw std::runtime_error("golden: missing " + key);
  for (size_t i = 0; i < a->size(); ++i)
    out.push_back(a->get(static_cast<unsigned>(i)).convert<T>());
  return out;
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

std::filesystem::path FixtureModel(const std::string& model) {
  if (model.find('/') != std::string::npos) return Fixtures() / (model + ".gguf");
  return Fixtures() / "models" / (model + ".gguf");
}

Golden LoadGolden(const std::string& model) {
  // "real/stories260K": real/stories260K.golden.json beside the model.
  const bool beside = model.find('/') != std::string::npos;
  const std::filesystem::path base = beside ? Fixtures() / model : Fixtures() / "goldens" / model;
  std::ifstream json(base.string() + (beside ? ".golden.json" : ".json"));
  if (!json) throw std::runtime_error("cannot open golden " + model);
  std::stringstream text;
  text << json.rdbuf();
  auto obj = Poco::JSON::Parser().parse(text.str()).extract<Poco::JSON::Object::Ptr>();
  Golden g;
  g.model = model;
  g.prompt = Array<int32_t>(obj, "prompt_tokens");
  g.greedy = Array<int32_t>(obj, "greedy_tokens");
  g.vocab = obj->getValue<int64_t>("n_vocab");
  g.margins = Array<double>(obj, "row_top1_margin");
  g.top1 = Array<int32_t>(obj, "row_top1");
  std::ifstream bin(base.string() + ".logits.f32", std::ios::binary);
  g.logits.resize(static_cast<size_t>(g.rows() * g.vocab));
  bin.read(reinterpret_cast<char*>(g.logits.data()),
           static_cast<std::streamsize>(g.logits.size() * sizeof(float)));
  if (!bin) throw std::runtime_error("golden logits of " + model + " are short");
  return g;
}

RowStats CompareRows(std::span<const float> a, std::span<const float> b, int64_t vocab) {
  RowStats s;
  const size_t rows = b.size() / static_cast<size_t>(vocab);
  for (size_t r = 0; r < rows; ++r) {
    double diff = 0.0, ref = 0.0;
    for (int64_t i = 0; i < vocab; ++i) {
      const double x = a[r * vocab + i], y = b[r * vocab + i];
      diff += (x - y) * (x - y);
      ref += y * y;
      s.max_abs = std::max(s.max_abs, std::abs(x - y));
    }
    s.rel.push_back(std::sqrt(diff / ref));
  }
  s.median = Quantile(s.rel, 0.5);
  s.p90 = Quantile(s.rel, 0.9);
  s.max = *std::max_element(s.rel.begin(), s.rel.end());
  return s;
}

int32_t Argmax(std::span<const float> row) {
  return static_cast<int32_t>(std::max_element(row.begin(), row.end()) - row.begin());
}

}  // namespace orcd::testing
