#include "host/server/metrics.h"

#include <cstdio>

namespace orcd {
namespace {

void Header(std::string* out, const char* name, const char* type, const char* help) {
  *out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

Metrics::Metrics()
    : start_(std::chrono::steady_clock::now()),
      inference_ms_({10, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000}),
      ttft_seconds_({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}),
      decode_tps_({1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000}),
      deadline_remaining_ms_({100, 500, 1000, 5000, 10000, 30000, 60000, 300000}),
      queue_seconds_({0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}),
      inter_token_seconds_({0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}) {}

void Metrics::RecordJob(const JobMetrics& job) {
  std::lock_guard lock(mu_);
  ++requests_by_outcome_[job.outcome];
  tokens_generated_ += static_cast<uint64_t>(job.tokens_out);
  prompt_tokens_ += static_cast<uint64_t>(job.prompt_tokens);
  inference_ms_.Observe(job.inference_ms);
  if (job.ttft_ms >= 0) ttft_seconds_.Observe(job.ttft_ms / 1000.0);
  if (job.decode_tokens_per_second > 0) decode_tps_.Observe(job.decode_tokens_per_second);
  if (job.queue_ms >= 0) queue_seconds_.Observe(job.queue_ms / 1000.0);
  for (const double gap : job.token_gaps_ms) inter_token_seconds_.Observe(gap / 1000.0);
}

void Metrics::RecordRejected(const std::string& outcome) {
  std::lock_guard lock(mu_);
  ++requests_by_outcome_[outcome];
}

void Metrics::SetVramBytes(uint64_t bytes) {
  std::lock_guard lock(mu_);
  vram_bytes_ = bytes;
}

void Metrics::SetQuantKind(const std::string& quant_kind) {
  std::lock_guard lock(mu_);
  quant_kind_ = quant_kind;
}

void Metrics::RecordUnknownFields(size_t count) {
  std::lock_guard lock(mu_);
  unknown_fields_ += count;
}

void Metrics::RecordDeadlineRemaining(double ms) {
  std::lock_guard lock(mu_);
  if (ms <= 0) {
    ++deadline_expired_;
  } else {
    deadline_remaining_ms_.Observe(ms);
  }
}

std::string Metrics::RenderServing(const ServingStats& s) {
  std::string out;
  const auto line = [&out](const char* name, const char* type, const char* help,
                           const std::string& value) {
    Header(&out, name, type, help);
    out += std::string(name) + " " + value + "\n";
  };
  line("worker_slots", "gauge", "Sequences generated at once (server.slots).",
       std::to_string(s.slots_total));
  line("worker_sequences_running", "gauge", "Sequences generating now.", std::to_string(s.running));
  line("worker_sequences_waiting", "gauge", "Accepted sequences waiting for a slot or KV blocks.",
       std::to_string(s.waiting));
  line("worker_kv_blocks_total", "gauge", "Blocks of the KV pool.",
       std::to_string(s.kv_blocks_total));
  line("worker_kv_blocks_free", "gauge", "Free blocks of the KV pool.",
       std::to_string(s.kv_blocks_free));
  const double used = s.kv_blocks_total > 0 ? 1.0 - static_cast<double>(s.kv_blocks_free) /
                                                        static_cast<double>(s.kv_blocks_total)
                                            : 0.0;
  line("worker_kv_usage_ratio", "gauge", "Share of the KV pool's blocks held by sequences.",
       std::to_string(used));
  line("worker_steps_total", "counter", "Engine steps run (continuous batching).",
       std::to_string(s.steps));
  line("worker_step_tokens_total", "counter", "Tokens evaluated by steps, summed.",
       std::to_string(s.step_tokens));
  line("worker_step_sequences_total", "counter",
       "Sequences in steps, summed (over worker_steps_total: the mean batch).",
       std::to_string(s.step_sequences));
  Header(&out, "worker_step_sequences", "histogram", "Sequences per engine step (batch size).");
  s.step_sequences_hist.Render("worker_step_sequences", &out);
  Header(&out, "worker_step_tokens", "histogram",
         "Tokens per engine step (decode tokens + prompt chunks).");
  s.step_tokens_hist.Render("worker_step_tokens", &out);
  Header(&out, "worker_step_seconds", "histogram",
         "Engine step durations (server.step_time_target_ms bounds those that carry prompt "
         "chunks beside generated tokens).");
  s.step_seconds_hist.Render("worker_step_seconds", &out);
  line("worker_preemptions_total", "counter",
       "Sequences preempted for KV blocks (they recompute when blocks are free again).",
       std::to_string(s.preemptions));
  line("worker_kv_blocks_cached", "gauge",
       "KV blocks holding a known prompt prefix (prefix caching), held or not.",
       std::to_string(s.kv_blocks_cached));
  line("worker_prefix_cache_query_tokens_total", "counter",
       "Prompt tokens looked up in the prefix cache.", std::to_string(s.prefix_query_tokens));
  line("worker_prefix_cache_hit_tokens_total", "counter",
       "Prompt tokens found in the prefix cache (not computed again).",
       std::to_string(s.prefix_hit_tokens));
  line("worker_prefix_cache_answers_total", "counter",
       "Finished answers evaluated again as prompt tokens so that the next turn finds them "
       "cached.",
       std::to_string(s.answers_cached));
  line("worker_kv_block_evictions_total", "counter",
       "Cached KV blocks no sequence held, evicted for new content.",
       std::to_string(s.kv_block_evictions));
  return out;
}

std::string Metrics::Render() const {
  std::lock_guard lock(mu_);
  std::string out;
  Header(&out, "worker_requests_total", "counter", "Inference requests by outcome.");
  for (const auto& [outcome, n] : requests_by_outcome_) {
    out += "worker_requests_total{outcome=\"" + outcome + "\"} " + std::to_string(n) + "\n";
  }
  Header(&out, "worker_tokens_generated_total", "counter", "Tokens generated.");
  out += "worker_tokens_generated_total " + std::to_string(tokens_generated_) + "\n";
  Header(&out, "worker_tokens_in_total", "counter", "Prompt tokens processed.");
  out += "worker_tokens_in_total " + std::to_string(prompt_tokens_) + "\n";
  Header(&out, "worker_prompt_tokens_total", "counter",
         "Alias of worker_tokens_in_total (earlier name).");
  out += "worker_prompt_tokens_total " + std::to_string(prompt_tokens_) + "\n";
  Header(&out, "worker_vram_bytes", "gauge", "Device memory held by the worker.");
  out +=
      "worker_vram_bytes{quant_kind=\"" + quant_kind_ + "\"} " + std::to_string(vram_bytes_) + "\n";
  Header(&out, "worker_request_unknown_fields_total", "counter",
         "Request fields ignored because this worker does not know them.");
  out += "worker_request_unknown_fields_total " + std::to_string(unknown_fields_) + "\n";
  Header(&out, "worker_deadline_expired_total", "counter",
         "Requests whose X-Deadline had passed when they arrived.");
  out += "worker_deadline_expired_total " + std::to_string(deadline_expired_) + "\n";
  Header(&out, "worker_deadline_remaining_ms", "histogram",
         "Time left before a request's X-Deadline when it arrived.");
  deadline_remaining_ms_.Render("worker_deadline_remaining_ms", &out);
  Header(&out, "worker_uptime_seconds", "gauge", "Seconds since the worker started.");
  out += "worker_uptime_seconds " +
         PrometheusNumber(
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()) +
         "\n";
  Header(&out, "worker_inference_duration_ms", "histogram", "Inference latency per job.");
  inference_ms_.Render("worker_inference_duration_ms", &out);
  Header(&out, "worker_time_to_first_token_seconds", "histogram",
         "Prompt processing plus the first decode step.");
  ttft_seconds_.Render("worker_time_to_first_token_seconds", &out);
  Header(&out, "worker_decode_tokens_per_second", "histogram", "Decode speed per job.");
  decode_tps_.Render("worker_decode_tokens_per_second", &out);
  Header(&out, "worker_queue_wait_seconds", "histogram",
         "From a job's acceptance to its first engine step (waiting for a slot or KV blocks).");
  queue_seconds_.Render("worker_queue_wait_seconds", &out);
  Header(&out, "worker_inter_token_latency_seconds", "histogram",
         "Between consecutive tokens of a job, as handed to its client.");
  inter_token_seconds_.Render("worker_inter_token_latency_seconds", &out);
  return out;
}

}  // namespace orcd
