// A Prometheus-style histogram: counts per upper bound, plus count and sum,
// rendered in the text exposition format. Not thread-safe: its owner locks.
#ifndef ORCD_HOST_COMMON_HISTOGRAM_H_
#define ORCD_HOST_COMMON_HISTOGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

namespace orcd {

// A value as Prometheus text writes it (%.17g: exact for a double).
std::string PrometheusNumber(double v);

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds)
      : bounds_(std::move(bounds)), counts_(bounds_.size()) {}
  void Observe(double v);
  // Appends the _bucket/_sum/_count lines for `name`.
  void Render(const std::string& name, std::string* out) const;
  uint64_t count() const { return count_; }

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // non-cumulative per bucket
  uint64_t count_ = 0;
  double sum_ = 0;
};

}  // namespace orcd

#endif  // ORCD_HOST_COMMON_HISTOGRAM_H_
