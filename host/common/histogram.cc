#include "host/common/histogram.h"

#include <cstdio>

namespace orcd {

std::string PrometheusNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void Histogram::Observe(double v) {
  ++count_;
  sum_ += v;
  for (size_t k = 0; k < bounds_.size(); ++k) {
    if (v <= bounds_[k]) {
      ++counts_[k];
      return;
    }
  }
}

void Histogram::Render(const std::string& name, std::string* out) const {
  uint64_t cumulative = 0;
  for (size_t k = 0; k < bounds_.size(); ++k) {
    cumulative += counts_[k];
    *out += name + "_bucket{le=\"" + PrometheusNumber(bounds_[k]) + "\"} " +
            std::to_string(cumulative) + "\n";
  }
  *out += name + "_bucket{le=\"+Inf\"} " + std::to_string(count_) + "\n";
  *out += name + "_sum " + PrometheusNumber(sum_) + "\n";
  *out += name + "_count " + std::to_string(count_) + "\n";
}

}  // namespace orcd
