// /metrics text: the seed spec's names, cumulative buckets, counts.
#include "host/server/metrics.h"

#include <gtest/gtest.h>

namespace orcd {
namespace {

TEST(Metrics, RendersPrometheusText) {
  Metrics m;
  m.RecordJob({"completed", 10, 5, 120.0, 30.0, 50.0});
  m.RecordJob({"cancelled", 3, 1, 40.0, -1, 0});
  m.RecordRejected("busy");
  m.SetVramBytes(1234);
  m.SetQuantKind("Q4_K_M");
  m.RecordUnknownFields(2);
  m.RecordDeadlineRemaining(250);
  m.RecordDeadlineRemaining(-5);
  const std::string t = m.Render();
  for (const char* line :
       {"worker_requests_total{outcome=\"completed\"} 1",
        "worker_requests_total{outcome=\"cancelled\"} 1",
        "worker_requests_total{outcome=\"busy\"} 1", "worker_tokens_generated_total 6",
        "worker_tokens_in_total 13", "worker_prompt_tokens_total 13",
        "worker_vram_bytes{quant_kind=\"Q4_K_M\"} 1234", "worker_request_unknown_fields_total 2",
        "worker_deadline_expired_total 1", "worker_deadline_remaining_ms_count 1",
        "worker_inference_duration_ms_bucket{le=\"50\"} 1",
        "worker_inference_duration_ms_bucket{le=\"250\"} 2",
        "worker_inference_duration_ms_bucket{le=\"+Inf\"} 2",
        "worker_inference_duration_ms_count 2", "worker_time_to_first_token_seconds_count 1",
        "worker_decode_tokens_per_second_count 1", "# TYPE worker_uptime_seconds gauge"}) {
    EXPECT_NE(t.find(line), std::string::npos) << "missing: " << line << "\n" << t;
  }
}

}  // namespace
}  // namespace orcd
