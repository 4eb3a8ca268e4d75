// Prometheus metrics (text exposition format 0.0.4). The spec's set
// (worker_vram_bytes{quant_kind}, worker_requests_total{outcome},
// worker_tokens_in_total, worker_tokens_generated_total,
// worker_inference_duration_ms, worker_uptime_seconds) plus time to first
// token, decode tokens/s, X-Deadline headroom and ignored request fields;
// many users: queue wait and inter-token latency per job, and the serving
// gauges and step histograms (RenderServing).
// worker_prompt_tokens_total is kept as an alias of worker_tokens_in_total.
#ifndef ORCD_HOST_SERVER_METRICS_H_
#define ORCD_HOST_SERVER_METRICS_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "host/common/histogram.h"
#include "host/generation/inference_service.h"

namespace orcd {

struct JobMetrics {
  std::string outcome;  // completed | cancelled | timeout | error | client_gone
  int64_t prompt_tokens = 0;
  int64_t tokens_out = 0;
  double inference_ms = 0;
  double ttft_ms = -1;  // < 0 when no token was produced
  double decode_tokens_per_second = 0;
  double queue_ms = -1;               // accepted until its first step (< 0: unknown)
  std::vector<double> token_gaps_ms;  // between consecutive tokens handed to the client
};

class Metrics {
 public:
  Metrics();
  void RecordJob(const JobMetrics& job);
  void RecordRejected(const std::string& outcome);  // invalid | busy | shutting_down
  void SetVramBytes(uint64_t bytes);
  void SetQuantKind(const std::string& quant_kind);
  // Request fields this worker does not know and ignored.
  void RecordUnknownFields(size_t count);
  // Time left before a request's X-Deadline when it arrived (< 0: expired).
  void RecordDeadlineRemaining(double ms);
  std::string Render() const;
  // The serving gauges and step counters (appended to Render's text).
  static std::string RenderServing(const ServingStats& s);

 private:
  mutable std::mutex mu_;
  std::chrono::steady_clock::time_point start_;
  std::map<std::string, uint64_t> requests_by_outcome_;
  uint64_t tokens_generated_ = 0;
  uint64_t prompt_tokens_ = 0;
  uint64_t vram_bytes_ = 0;
  std::string quant_kind_;
  uint64_t unknown_fields_ = 0;
  uint64_t deadline_expired_ = 0;
  Histogram inference_ms_;
  Histogram ttft_seconds_;
  Histogram decode_tps_;
  Histogram deadline_remaining_ms_;
  Histogram queue_seconds_;
  Histogram inter_token_seconds_;
};

}  // namespace orcd

#endif  // ORCD_HOST_SERVER_METRICS_H_
