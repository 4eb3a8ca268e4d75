// Prometheus metrics (text exposition format 0.0.4). The seed spec's set
// (worker_vram_bytes, worker_requests_total{outcome}, worker_tokens_generated_total,
// worker_inference_duration_ms, worker_uptime_seconds) plus time to first
// token, prompt tokens and decode tokens/s.
#ifndef ORCD_HOST_SERVER_METRICS_H_
#define ORCD_HOST_SERVER_METRICS_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace orcd {

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds)
      : bounds_(std::move(bounds)), counts_(bounds_.size()) {}
  void Observe(double v);
  // Appends the _bucket/_sum/_count lines for `name`.
  void Render(const std::string& name, std::string* out) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // non-cumulative per bucket
  uint64_t count_ = 0;
  double sum_ = 0;
};

struct JobMetrics {
  std::string outcome;  // completed | cancelled | timeout | error | client_gone
  int64_t prompt_tokens = 0;
  int64_t tokens_out = 0;
  double inference_ms = 0;
  double ttft_ms = -1;  // < 0 when no token was produced
  double decode_tokens_per_second = 0;
};

class Metrics {
 public:
  Metrics();
  void RecordJob(const JobMetrics& job);
  void RecordRejected(const std::string& outcome);  // invalid | busy | shutting_down
  void SetVramBytes(uint64_t bytes);
  std::string Render() const;

 private:
  mutable std::mutex mu_;
  std::chrono::steady_clock::time_point start_;
  std::map<std::string, uint64_t> requests_by_outcome_;
  uint64_t tokens_generated_ = 0;
  uint64_t prompt_tokens_ = 0;
  uint64_t vram_bytes_ = 0;
  Histogram inference_ms_;
  Histogram ttft_seconds_;
  Histogram decode_tps_;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_METRICS_H_
